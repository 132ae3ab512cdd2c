import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrlShape, type Resolver, type UrlPolicy, UnsafeUrlError, vetDestination } from './url-safety';
import { signWebhook } from './webhook-signature';

/** How much of a receiver's answer is read: enough for a log line, never a way to fill memory. */
export const RESPONSE_BODY_CAP_BYTES = 1024;

/**
 * Connections are kept open between attempts (a new TCP and TLS handshake per event would cost
 * more than the event). A kept connection goes to the address vetted when it was opened; every
 * new one is opened to the address vetted for the attempt that opens it.
 */
const httpAgent = new HttpAgent({ keepAlive: true, scheduling: 'lifo' });
const httpsAgent = new HttpsAgent({ keepAlive: true, scheduling: 'lifo' });

export interface WebhookMessage {
  url: string;
  secret: string;
  eventId: string;
  payload: string;
}

export type AttemptResult =
  | { delivered: true; statusCode: number }
  | { delivered: false; statusCode: number | null; error: string; kind: 'status' | 'timeout' | 'network' | 'refused' };

/**
 * One attempt: the URL is vetted again (after DNS resolution) and the connection goes to the
 * vetted address itself, so a rebinding answer cannot redirect it. Redirects are not followed
 * (a 3xx is a failed attempt); the timeout covers resolution, connection and the whole answer.
 * `stop` abandons the attempt (shutdown): it ends as a network failure, retried after its lease.
 */
export async function sendWebhook(
  message: WebhookMessage,
  policy: UrlPolicy,
  resolve: Resolver,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<AttemptResult> {
  // One controller and one timer per attempt (AbortSignal.any and .timeout cost more, per attempt).
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  const onStop = () => abort.abort();
  if (stop?.aborted) abort.abort();
  stop?.addEventListener('abort', onStop, { once: true });
  const signal = abort.signal;
  try {
    const url = checkUrlShape(message.url, policy);
    const destination = await raceAbort(vetDestination(url, policy, resolve), signal);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(message.payload)),
      'user-agent': 'payment-service-webhooks/1',
      'webhook-id': message.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(message.secret, message.eventId, timestamp, message.payload),
    };
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [destination]);
      } else {
        callback(null, destination.address, destination.family);
      }
    };
    const statusCode = await post(url, headers, message.payload, pinned, signal);
    if (statusCode >= 200 && statusCode < 300) return { delivered: true, statusCode };
    return { delivered: false, statusCode, error: `HTTP ${statusCode}`, kind: 'status' };
  } catch (error) {
    if (error instanceof UnsafeUrlError)
      return { delivered: false, statusCode: null, error: error.message, kind: 'refused' };
    if (timedOut)
      return { delivered: false, statusCode: null, error: `timed out after ${timeoutMs} ms`, kind: 'timeout' };
    const code = (error as NodeJS.ErrnoException).code;
    return {
      delivered: false,
      statusCode: null,
      error: code ?? (error as Error).message.slice(0, 150),
      kind: 'network',
    };
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop);
  }
}

function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  lookup: LookupFunction,
  signal: AbortSignal,
): Promise<number> {
  const https = url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers, lookup, signal, agent: https ? httpsAgent : httpAgent },
      (response) => drainCapped(response, () => resolve(response.statusCode ?? 0), reject),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Reads at most the cap of the answer, then stops: the status is what counts, the body is never logged. */
function drainCapped(response: IncomingMessage, done: () => void, fail: (error: Error) => void): void {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read >= RESPONSE_BODY_CAP_BYTES) {
      response.destroy();
      done();
    }
  });
  response.on('end', done);
  response.on('error', fail);
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
