import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { checkUrlShape, type Resolver, type UrlPolicy, UnsafeUrlError, vetDestination } from './url-safety';

/** How much of a receiver's answer is read: enough for a log line, never a way to fill memory. */
export const RESPONSE_BODY_CAP_BYTES = 1024;

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
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
  try {
    const url = checkUrlShape(message.url, policy);
    const destination = await raceAbort(vetDestination(url, policy, resolve), signal);
    const timestamp = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'payment-service-webhooks/1',
      'webhook-id': message.eventId,
      'webhook-timestamp': String(timestamp.getTime() / 1000),
      'webhook-signature': new Webhook(message.secret).sign(message.eventId, timestamp, message.payload),
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
    if (timeout.aborted)
      return { delivered: false, statusCode: null, error: `timed out after ${timeoutMs} ms`, kind: 'timeout' };
    const code = (error as NodeJS.ErrnoException).code;
    return {
      delivered: false,
      statusCode: null,
      error: code ?? (error as Error).message.slice(0, 150),
      kind: 'network',
    };
  }
}

function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  lookup: LookupFunction,
  signal: AbortSignal,
): Promise<number> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, signal },
      (response) => {
        drainCapped(response)
          .then(() => resolve(response.statusCode ?? 0))
          .catch(reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Reads at most the cap of the answer, then stops: the status is what counts, the body is never logged. */
async function drainCapped(response: IncomingMessage): Promise<void> {
  let read = 0;
  for await (const chunk of response) {
    read += (chunk as Buffer).length;
    if (read >= RESPONSE_BODY_CAP_BYTES) {
      response.destroy();
      return;
    }
  }
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
