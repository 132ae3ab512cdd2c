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
 * of 13 runs did (docs/decisions/0012-v8-heap-settings-and-flags.md).
 *
 * --heap-growing-percent=60: after a full collection V8 lets the old space grow to 1.6 times what
 * stayed live before it collects again. Under --max-old-space-size=256 it would choose its minimum,
 * 1.3 times: with ~55 MB live, a full collection every ~16 MB of growth, each stalling requests for
 * 40-80 ms (its marking beside the database on two cores), one or two in every 15 s at 1,000
 * transfers/s. 1.6 halves them for about 20 MiB more RSS at the peak; 2 kept them out of a 15 s
 * window but took history reads under 32 clients to 286-295 MiB, too near the 300 MiB target.
 * The heap's ceiling (--max-old-space-size) is unchanged (docs/decisions/0012-v8-heap-settings-and-flags.md).
 *
 * The one place the service reaches into V8's internals: V8 ignores a flag it does not know, so
 * test/perf/v8-flags.e2e-spec.ts fails when the installed V8 drops or changes either of them
 * (docs/decisions/0019-no-runtime-code-on-library-internals.md).
 */
const V8_FLAGS = ['--no-allocation-site-pretenuring', '--heap-growing-percent=60'] as const;

for (const flag of V8_FLAGS) setFlagsFromString(flag);
