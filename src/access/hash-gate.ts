import { availableParallelism } from 'node:os';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';

/**
 * At most HASHES_RUNNING PIN hashes run at once (scrypt on libuv's pool), and HASHES_QUEUED wait:
 * beyond that a login or registration is 503 at once instead of queueing behind a flood, so a
 * burst of hashing costs a bounded amount of CPU and memory (each hash holds 32 MiB).
 */
export const HASHES_RUNNING = Math.max(2, availableParallelism());
export const HASHES_QUEUED = 64;

let running = 0;
const waiting: (() => void)[] = [];

/** Runs one PIN hash under the process-wide limit; 503 service-unavailable when the queue is full. */
export async function gatedHash<T>(hash: () => Promise<T>): Promise<T> {
  if (running >= HASHES_RUNNING) {
    if (waiting.length >= HASHES_QUEUED) {
      throw new ApiError(ErrorCode.ServiceUnavailable, 'Too many PIN checks in progress; retry shortly', {
        headers: { 'Retry-After': '1' },
      });
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await hash();
  } finally {
    // The slot passes straight to the next in line, so `running` never overshoots.
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}
