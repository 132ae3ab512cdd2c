/**
 * The V8 heap settings the service ships with, as NODE_OPTIONS. They are given to Node before it
 * starts (V8 sizes its heap before any JavaScript runs, so the service cannot apply them itself):
 * by package.json "start", docker/Dockerfile, ops/kubernetes/deployment.yaml and the harness that
 * the benchmark and the tests start the service through (scripts/lib/service-process.ts), so the
 * benchmark measures what production runs. test/process/heap-settings.e2e-spec.ts keeps them all equal.
 *
 * Why: without them V8 sizes the heap from the machine's memory. On a large host that is a 4 GiB
 * limit, 64 MiB semi-spaces and an old space allowed to grow to four times the live set before a
 * full collection: RSS climbed to ~420 MiB under load although the live heap stayed ~55 MiB. Inside
 * the pod's 512 MiB cgroup V8 chooses again, differently, so neither the benchmark nor production
 * would have run what the other measured.
 * - max-semi-space-size=32: the young generation is at most 2 x 32 MiB. Smaller semi-spaces
 *   scavenge more often and copy the requests in flight each time: 16 saved ~25 MiB more but
 *   doubled the scavenges; 32 kept the GC time per transfer where the defaults had it.
 * - max-old-space-size=256: bounds the old space; the whole heap limit, 256 + 3 x 32 = 352 MiB,
 *   leaves room for code, stacks and native buffers under the Deployment's 512 MiB memory limit.
 *   (Under it V8 would grow the old space by its minimum factor between full collections; the
 *   service sets that factor itself as it starts: src/perf/v8-flags.ts.)
 */
export const SHIPPED_NODE_OPTIONS = '--max-semi-space-size=32 --max-old-space-size=256';
