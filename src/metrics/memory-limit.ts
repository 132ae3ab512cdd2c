import { totalmem } from 'node:os';
import { makeGaugeProvider } from '@willsoto/nestjs-prometheus';

/**
 * The memory this process may use: the container's cgroup limit when there is one, else the
 * machine's memory. Exported beside process_resident_memory_bytes so that "RSS against the limit"
 * is one query on the service's own series, whatever else the cluster's Prometheus scrapes.
 */
export const memoryLimitProviders = [
  makeGaugeProvider({
    name: 'payments_memory_limit_bytes',
    help: 'Memory limit of this process: the cgroup limit (Kubernetes resources.limits.memory), else the machine total',
    collect() {
      const limit = process.constrainedMemory();
      this.set(limit > 0 && limit < Number.MAX_SAFE_INTEGER ? limit : totalmem());
    },
  }),
];
