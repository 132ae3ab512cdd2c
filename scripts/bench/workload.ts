import { randomUUID } from 'node:crypto';
import type { HttpDriver, HttpSender } from './http-driver';
import type { Operation } from './load';

export interface BenchUser {
  upiId: string;
  referenceId: string;
  token: string;
}

/** Registers users over HTTP (as a client would), 32 at a time, then logs each in. */
export async function registerUsers(http: HttpDriver, count: number, runId: string): Promise<BenchUser[]> {
  const upiIds = Array.from({ length: count }, (_, i) => `bench.${runId}.${i}@okbank`);
  await inBatches(upiIds, async (upiId, i) => {
    const user = { name: 'Bench', upiId, phoneNumber: String(7_000_000_000 + i), balance: 10_000_000 };
    const registered = await http.send('POST', '/api/v1/users', user);
    if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${registered.body}`);
  });
  return logInAll(http, upiIds);
}

/** Users that exist already, logged in 32 at a time. */
export function logInAll(http: HttpDriver, upiIds: string[]): Promise<BenchUser[]> {
  return inBatches(upiIds, async (upiId) => {
    const login = await http.send('POST', '/api/v1/auth/login', { upiId });
    if (login.status !== 200) throw new Error(`login of ${upiId} failed: ${login.status} ${login.body}`);
    const body = JSON.parse(login.body);
    return { upiId, referenceId: body.referenceId, token: body.accessToken };
  });
}

async function inBatches<T>(items: string[], work: (item: string, index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < items.length; start += 32) {
    const batch = items.slice(start, start + 32).map((item, i) => work(item, start + i));
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

/**
 * Transfers with a unique Idempotency-Key each. Senders in rotation, so each stays well under
 * the per-user rate limit; a share of them go to a few hot receivers (lock contention).
 */
export function transferOperation(http: HttpSender, users: BenchUser[], hot: number, hotShare: number): Operation {
  const hotReceivers = users.slice(0, hot);
  let cursor = 0;
  return async () => {
    const senderIndex = cursor++ % users.length;
    const sender = users[senderIndex];
    let receiver =
      Math.random() < hotShare
        ? hotReceivers[Math.floor(Math.random() * hotReceivers.length)]
        : users[Math.floor(Math.random() * users.length)];
    if (receiver === sender) receiver = users[(senderIndex + 1) % users.length];
    const body = {
      senderUpiId: sender.upiId,
      receiverUpiId: receiver.upiId,
      amount: (1 + Math.random() * 99).toFixed(2),
    };
    const response = await http.send('POST', '/api/v1/transactions', body, {
      authorization: `Bearer ${sender.token}`,
      'idempotency-key': randomUUID(),
    });
    return { outcome: String(response.status), ok: response.status === 201 };
  };
}

/** The history reads measured, each a name for the report and its request path. A new read is one more entry. */
export const HISTORY_READS: { name: string; path: (user: BenchUser) => string }[] = [
  { name: 'ledger page', path: (u) => `/api/v1/users/${u.referenceId}/ledger?page=0&size=20` },
  { name: 'transaction list', path: (u) => `/api/v1/transactions/user/${encodeURIComponent(u.upiId)}?page=0&size=20` },
  // The default period (the last 30 days), as JSON: every entry of the period, streamed.
  { name: 'statement', path: (u) => `/api/v1/users/${u.referenceId}/statement` },
];

/** Each read is a kind and a reader picked at random; anything but 200 is an error. */
export function readOperation(http: HttpDriver, readers: BenchUser[]): Operation {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  return async () => {
    const read = pick(HISTORY_READS);
    const reader = pick(readers);
    const response = await http.send('GET', read.path(reader), undefined, { authorization: `Bearer ${reader.token}` });
    return { outcome: `${read.name} ${response.status}`, ok: response.status === 200, kind: read.name };
  };
}
