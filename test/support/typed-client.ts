import { createPaymentClient, type PaymentClient } from '../../clients/typescript/src';
import type { ApiResponse } from './api-client';

const rawTexts = new WeakMap<Response, string>();

/** fetch that keeps each answer's exact text, for byte-level assertions next to the typed data. */
async function recordingFetch(request: Request): Promise<Response> {
  const original = await fetch(request);
  const text = await original.text();
  const bodyless = original.status === 204 || original.status === 304;
  const copy = new Response(bodyless ? null : text, { status: original.status, headers: original.headers });
  rawTexts.set(copy, text);
  return copy;
}

/** The generated client of clients/typescript, as `token`'s holder (anonymous without one). */
export function typedClient(baseUrl: string, token?: string): PaymentClient {
  return createPaymentClient({
    baseUrl,
    fetch: recordingFetch,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

/** The exact text of an answer received by a typed client. */
export function rawText(response: Response): string {
  const text = rawTexts.get(response);
  if (text === undefined) throw new Error('not an answer of typedClient');
  return text;
}

/** A typed client's answer in the shape expectProblem and the other helpers read. */
export function asApiResponse(result: { response: Response; data?: unknown; error?: unknown }): ApiResponse {
  const { response } = result;
  return {
    status: response.status,
    headers: response.headers,
    text: rawText(response),
    body: result.data ?? result.error,
  };
}
