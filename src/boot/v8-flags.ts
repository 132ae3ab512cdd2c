import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags the service runs with that NODE_OPTIONS refuses, so they are set here, as the process
 * starts: main.ts imports this module right after the Node version check, before the application.
 *
 * --no-allocation-site-pretenuring: V8 watches where objects are allocated and, when most objects
 * of one site survive a young collection, allocates that site's later objects straight in the old
 * space. Under the benchmark's full load about half the runs fell into a state of 30-42 full
 * collections in 20 s instead of 4-7 (the old space filling about ten times faster), with up to
 * 0.2 ms more service CPU per transfer and the throughput ratio at 0.36-0.51. With this flag none
 * of 13 runs did (docs/decisions.md, "Pretenuring and the state of frequent full collections").
 */
const V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

for (const flag of V8_FLAGS) setFlagsFromString(flag);
