import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../scripts/lib/service-process';

const OPS = join(REPO_ROOT, 'ops');
const yaml = (path: string) => parse(readFileSync(join(OPS, path), 'utf8'));
const base = yaml('kubernetes/kustomization.yaml');
const overlay = yaml('overlays/production/kustomization.yaml');

/** What the offline schema validation in .ci/run cannot see: how the manifests fit each other and the alerts. */
describe('the operations manifests', () => {
  it('the ServiceMonitor (a CRD) selects the Service, scrapes its port and path, and makes job="payment-service"', () => {
    const monitor = yaml('kubernetes/monitoring/servicemonitor.yaml');
    expect(monitor).toEqual(
      expect.objectContaining({ apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor' }),
    );
    // The Service's labels are the base's common labels (kustomize adds them to every object).
    const serviceLabels: Record<string, string> = base.labels[0].pairs;
    const service = yaml('kubernetes/service.yaml');
    for (const [label, value] of Object.entries(monitor.spec.selector.matchLabels))
      expect({ label, value }).toEqual({ label, value: serviceLabels[label] });
    expect(serviceLabels[monitor.spec.jobLabel]).toBe('payment-service');
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/actuator/prometheus' })]);
    expect(service.spec.ports.map((port: { name: string }) => port.name)).toContain('http');
    // The rules select exactly that job.
    const rules = readdirSync(join(OPS, 'prometheus', 'rules')).map((file) =>
      readFileSync(join(OPS, 'prometheus', 'rules', file), 'utf8'),
    );
    for (const text of rules)
      expect(text.match(/job="[^"]*"/g)?.every((m) => m === 'job="payment-service"')).toBe(true);
  });

  it('the production overlay adds the ServiceMonitor, the Kafka settings and a versioned image', () => {
    expect(overlay.components).toEqual(['../../kubernetes/monitoring']);
    const kafka = yaml(`overlays/production/${overlay.patches[0].path}`);
    expect(Object.keys(kafka.data).sort()).toEqual(['KAFKA_BROKERS', 'KAFKA_REPLICATION_FACTOR']);
    expect(kafka.data.KAFKA_BROKERS.split(',')).toHaveLength(3);
    // The base is light mode: no cluster address hard-coded in it.
    expect(Object.keys(yaml('kubernetes/configmap.yaml').data)).not.toContain('KAFKA_BROKERS');
    for (const { images } of [base, overlay]) {
      expect(images).toEqual([expect.objectContaining({ name: 'payment-service' })]);
      expect(images[0].newTag ?? images[0].digest).toMatch(/^(\d+\.\d+\.\d+|sha256:[0-9a-f]{64})$/);
    }
  });

  it('no replicas beside the HorizontalPodAutoscaler', () => {
    const [deployment] = parseAllDocuments(readFileSync(join(OPS, 'kubernetes', 'deployment.yaml'), 'utf8')).map((d) =>
      d.toJS(),
    );
    const hpa = yaml('kubernetes/horizontalpodautoscaler.yaml');
    expect(hpa.spec.scaleTargetRef).toEqual(
      expect.objectContaining({ kind: 'Deployment', name: deployment.metadata.name }),
    );
    expect(deployment.spec).not.toHaveProperty('replicas');
  });

  it('every alert has a promtool test that names it', () => {
    const alerts = readdirSync(join(OPS, 'prometheus', 'rules')).flatMap((file) =>
      yaml(`prometheus/rules/${file}`).groups.flatMap((group: { rules: { alert?: string }[] }) =>
        group.rules.flatMap((rule) => (rule.alert ? [rule.alert] : [])),
      ),
    );
    const tested = new Set(
      readdirSync(join(OPS, 'prometheus', 'tests')).flatMap((file) =>
        yaml(`prometheus/tests/${file}`).tests.flatMap((test: { alert_rule_test?: { alertname: string }[] }) =>
          (test.alert_rule_test ?? []).map((rule) => rule.alertname),
        ),
      ),
    );
    expect(alerts.length).toBeGreaterThanOrEqual(16);
    expect(alerts.filter((alert) => !tested.has(alert))).toEqual([]);
  });

  it('the dashboard selects job and instance on every query, from variables', () => {
    const dashboard = JSON.parse(readFileSync(join(OPS, 'grafana', 'dashboards', 'payment-service.json'), 'utf8'));
    expect(dashboard.templating.list.map((variable: { name: string }) => variable.name)).toEqual(['job', 'instance']);
    const exprs: string[] = dashboard.panels.flatMap((panel: { targets?: { expr: string }[] }) =>
      (panel.targets ?? []).map((target) => target.expr),
    );
    for (const expr of exprs) {
      const selectors = expr.match(/\b[a-z_][a-z0-9_]*\{[^}]*\}/g) ?? [];
      expect({
        expr,
        scoped: selectors.length > 0 && selectors.every((s) => s.includes('job="$job", instance=~"$instance"')),
      }).toEqual({
        expr,
        scoped: true,
      });
    }
  });
});
