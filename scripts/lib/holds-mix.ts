import { randomUUID } from 'node:crypto';
import type { HttpDriver } from '../bench/http-driver';
import type { Operation } from '../bench/load';
import type { PhaseResult } from '../bench/results';
import type { BenchUser } from '../bench/workload';

/**
 * The holds mix of the benchmark (`npm run bench -- --holds`): after the plain transfers, a
 * closed-loop phase in which each operation places a hold (POST /api/v1/holds) and its payee then
 * captures all of it (POST .../captures): two money movements, each with its Idempotency-Key. Its
 * operations per second stand beside the transfers per second in the same run; the ledger
 * invariants checked at the end cover the holds too. Kept here, out of scripts/bench, whose
 * size is capped.
 */
export const HOLDS_WORKLOAD = 'holds: place, then capture';

/** The phase's description, as bench.ts records each phase. */
export function holdsMixPhase(database: PhaseResult['database']): Pick<PhaseResult, 'workload' | 'loop' | 'database'> {
  return { workload: HOLDS_WORKLOAD, loop: 'closed', database };
}

/** Payers in rotation (each well under the per-user rate limit), a payee picked at random. */
export function holdsMixOperation(http: HttpDriver, users: BenchUser[]): Operation {
  let cursor = 0;
  return async () => {
    const payerIndex = cursor++ % users.length;
    const payer = users[payerIndex];
    let payee = users[Math.floor(Math.random() * users.length)];
    if (payee === payer) payee = users[(payerIndex + 1) % users.length];
    const amount = (1 + Math.random() * 99).toFixed(2);
    const placed = await http.send(
      'POST',
      '/api/v1/holds',
      { payeeUpiId: payee.upiId, amount, expiresInSeconds: 3600 },
      { authorization: `Bearer ${payer.token}`, 'idempotency-key': randomUUID() },
    );
    if (placed.status !== 201) return { outcome: `place ${placed.status}`, ok: false, kind: 'place' };
    const hold = (JSON.parse(placed.body) as { referenceId: string }).referenceId;
    const captured = await http.send(
      'POST',
      `/api/v1/holds/${hold}/captures`,
      {},
      { authorization: `Bearer ${payee.token}`, 'idempotency-key': randomUUID() },
    );
    return { outcome: `capture ${captured.status}`, ok: captured.status === 201, kind: 'place+capture' };
  };
}
