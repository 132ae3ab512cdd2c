import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { FAILOVER_SETTINGS, OWNER_ROLE, SERVICE_ROLE } from '../../scripts/cluster/local-cluster';
import { REPO_ROOT } from '../../scripts/lib/service-process';

const OPS = join(REPO_ROOT, 'ops');
const yaml = (path: string) => parse(readFileSync(join(OPS, path), 'utf8'));

/** The production database manifests, which CI's Kubernetes schema validation cannot see (CRDs, Patroni). */
describe('the highly available database for production', () => {
  it('the CloudNativePG Cluster runs three instances on three nodes with required synchronous durability', () => {
    const cluster = yaml('cloudnativepg/cluster.yaml');
    expect(cluster).toEqual(expect.objectContaining({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster' }));
    expect(cluster.spec.instances).toBe(3);
    expect(cluster.spec.imageName).toMatch(/postgresql:18/);
    expect(cluster.spec.postgresql.synchronous).toEqual({ method: 'any', number: 1, dataDurability: 'required' });
    expect(cluster.spec.affinity).toEqual(
      expect.objectContaining({ enablePodAntiAffinity: true, podAntiAffinityType: 'required' }),
    );
    expect(cluster.spec.enableSuperuserAccess).toBe(false);
  });

  it('the CloudNativePG Cluster makes the two roles of docs/database-roles.md', () => {
    const { initdb } = yaml('cloudnativepg/cluster.yaml').spec.bootstrap;
    expect(initdb).toEqual(expect.objectContaining({ database: 'payments', owner: OWNER_ROLE, dataChecksums: true }));
    const sql: string[] = initdb.postInitApplicationSQL;
    expect(sql).toContain(`CREATE ROLE ${SERVICE_ROLE} LOGIN`);
    expect(sql).toContain(`GRANT USAGE ON SCHEMA public TO ${SERVICE_ROLE}`);
    expect(sql.filter((line) => line.startsWith(`ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE}`))).toHaveLength(3);
    const [serviceRole] = yaml('cloudnativepg/cluster.yaml').spec.managed.roles;
    expect(serviceRole).toEqual(
      expect.objectContaining({ name: SERVICE_ROLE, login: true, superuser: false, createrole: false }),
    );
    // Stays out of ops/kubernetes, whose manifests CI validates with the plain Kubernetes schemas.
    expect(readFileSync(join(OPS, 'kubernetes', 'kustomization.yaml'), 'utf8')).not.toMatch(/cloudnativepg/);
  });

  it('the Patroni example fails over exactly like `npm run cluster`, over etcd 3, with a watchdog', () => {
    const patroni = yaml('patroni/patroni.example.yml');
    expect(patroni.bootstrap.dcs).toEqual(expect.objectContaining(FAILOVER_SETTINGS));
    expect(FAILOVER_SETTINGS.loop_wait + 2 * FAILOVER_SETTINGS.retry_timeout).toBeLessThanOrEqual(
      FAILOVER_SETTINGS.ttl,
    );
    expect(patroni.etcd3.hosts).toHaveLength(3);
    expect(patroni.bootstrap.dcs.postgresql.use_pg_rewind).toBe(true);
    expect(patroni.watchdog.mode).toBe('required');
    expect(patroni.postgresql.authentication.superuser).not.toHaveProperty('password');
  });
});
