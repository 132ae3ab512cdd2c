import { randomUUID } from 'node:crypto';
import type { HttpDriver, HttpSender } from './http-driver';
import type { Operation } from './load';

export interface BenchUser {
  upiId: string;
  referenceId: string;
  token: string;
}

/** Registers users over HTTP (as a client would), 32 at a time, and logs each in. */
export async function registerUsers(http: HttpDriver, count: number, runId: string): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  for (let start = 0; start < count; start += 32) {
    const batch = Array.from({ length: Math.min(32, count - start) }, async (_, i) => {
      const upiId = `bench.${runId}.${start + i}@okbank`;
      const registered = await http.send('POST', '/api/v1/users', {
        name: 'Bench',
        upiId,
        phoneNumber: String(7_000_000_000 + start + i),
        balance: 10_000_000,
      });
      if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${registered.body}`);
      users.push(await logIn(http, upiId));
    });
    await Promise.all(batch);
  }
  return users;
}

export async function logIn(http: HttpDriver, upiId: string): Promise<BenchUser> {
  const login = await http.send('POST', '/api/v1/auth/login', { upiId });
  if (login.status !== 200) throw new Error(`login of ${upiId} failed: ${login.status} ${login.body}`);
  const body = JSON.parse(login.body);
  return { upiId, referenceId: body.referenceId, token: body.accessToken };
}

/** Users that exist already (seeded in SQL), logged in 32 at a time. */
export async function logInAll(http: HttpDriver, upiIds: string[]): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  for (let start = 0; start < upiIds.length; start += 32) {
    users.push(...(await Promise.all(upiIds.slice(start, start + 32).map((upiId) => logIn(http, upiId)))));
  }
  return users;
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

/** One kind of history read: a name for the report, its share of the mix, and its request path. */
export interface HistoryRead {
  name: string;
  weight: number;
  path: (user: BenchUser) => string;
}

/** The history reads measured at scale. A new read endpoint is one more entry here. */
export const HISTORY_READS: HistoryRead[] = [
  { name: 'ledger page', weight: 1, path: (u) => `/api/v1/users/${u.referenceId}/ledger?page=0&size=20` },
  {
    name: 'transaction list',
    weight: 1,
    path: (u) => `/api/v1/transactions/user/${encodeURIComponent(u.upiId)}?page=0&size=20`,
  },
  // The default period (the last 30 days), as JSON: every entry of the period, streamed.
  { name: 'statement', weight: 1, path: (u) => `/api/v1/users/${u.referenceId}/statement` },
];

/** Each read picks a kind by weight and a random reader; anything but 200 is an error. */
export function readOperation(http: HttpDriver, readers: BenchUser[], reads: HistoryRead[] = HISTORY_READS): Operation {
  const totalWeight = reads.reduce((sum, read) => sum + read.weight, 0);
  const pick = () => {
    let ticket = Math.random() * totalWeight;
    for (const read of reads) {
      ticket -= read.weight;
      if (ticket < 0) return read;
    }
    return reads[reads.length - 1];
  };
  return async () => {
    const read = pick();
    const reader = readers[Math.floor(Math.random() * readers.length)];
    const response = await http.send('GET', read.path(reader), undefined, { authorization: `Bearer ${reader.token}` });
    return { outcome: `${read.name} ${response.status}`, ok: response.status === 200, kind: read.name };
  };
}
