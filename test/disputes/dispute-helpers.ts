import type { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { type ApiClient, newIdempotencyKey, type RegisteredUser } from '../support/api-client';

/** A payer who paid a payee: both fresh, and the transfer's body. */
export interface Paid {
  payer: RegisteredUser;
  payee: RegisteredUser;
  transfer: { referenceId: string; amount: number };
}

/** What a test of disputes does over HTTP, and the checks every file ends with. */
export class DisputeCalls {
  readonly users: RegisteredUser[] = [];

  constructor(private readonly api: ApiClient) {}

  async user(balance: number | string = 1000): Promise<RegisteredUser> {
    const user = await this.api.registerUser({ balance });
    this.users.push(user);
    return user;
  }

  async paid(amount: number | string = 100, payerBalance = 1000, payeeBalance = 0): Promise<Paid> {
    const [payer, payee] = await Promise.all([this.user(payerBalance), this.user(payeeBalance)]);
    return { payer, payee, transfer: await this.pay(payer, payee, amount) };
  }

  async pay(payer: RegisteredUser, payee: RegisteredUser, amount: number | string = 100) {
    const transfer = await this.api.transfer(payer, payee.upiId, amount);
    if (transfer.status !== 201) throw new Error(`transfer failed: ${transfer.status} ${transfer.text}`);
    return transfer.body as { referenceId: string; amount: number };
  }

  open(
    caller: { token: string },
    transactionReferenceId: string,
    body: object = { reason: 'WRONG_AMOUNT' },
    key = newIdempotencyKey(),
  ) {
    return this.api.post(`/api/v1/transactions/${transactionReferenceId}/disputes`, body, {
      token: caller.token,
      headers: { 'idempotency-key': key },
    });
  }

  /** Opens a dispute that must be created; its body. */
  async opened(caller: { token: string }, transactionReferenceId: string, body?: object) {
    const response = await this.open(caller, transactionReferenceId, body);
    if (response.status !== 201) throw new Error(`dispute not opened: ${response.status} ${response.text}`);
    return response.body as { referenceId: string; status: string };
  }

  answer(caller: { token: string }, disputeId: string, verb: 'accept' | 'reject' | 'withdraw', body?: object) {
    return this.api.request('POST', `/api/v1/disputes/${disputeId}/${verb}`, { token: caller.token, body });
  }

  resolve(admin: { token: string }, disputeId: string, body: object) {
    return this.api.post(`/api/v1/admin/disputes/${disputeId}/resolve`, body, { token: admin.token });
  }

  read(caller: { token: string }, disputeId: string) {
    return this.api.get(`/api/v1/disputes/${disputeId}`, caller.token);
  }

  /** Money conserved for every user this file made, and the service's own audit passes. */
  async expectMoneyConserved(db: Client, admin: { token: string }): Promise<void> {
    const violations = await findLedgerViolations(db, { userReferenceIds: this.users.map((u) => u.referenceId) });
    if (violations.length > 0) throw new Error(`ledger violations: ${violations.join('; ')}`);
    const audit = await this.api.get('/api/v1/admin/audit', admin.token);
    // The whole report in the failure message: which check broke, on which rows.
    expect({ status: audit.status, report: audit.body }).toMatchObject({ status: 200, report: { ok: true } });
  }
}

/** The outbox events of one dispute, oldest first. */
export async function disputeEvents(db: Client, disputeId: string): Promise<{ type: string; payload: any }[]> {
  const { rows } = await db.query<{ type: string; payload: string }>(
    `SELECT event_type AS type, payload FROM outbox_events WHERE payload::jsonb ->> 'disputeReferenceId' = $1 ORDER BY id`,
    [disputeId],
  );
  return rows.map((row) => ({ type: row.type, payload: JSON.parse(row.payload) }));
}

/** REVERSAL transactions of a transfer, and the transfer's reversed amount and status. */
export async function reversalsOf(db: Client, transferReferenceId: string) {
  const { rows } = await db.query<{ amount: string }>(
    `SELECT amount::text AS amount FROM transactions WHERE original_reference_id = $1 AND type = 'REVERSAL'`,
    [transferReferenceId],
  );
  const original = await db.query<{ reversed: string; status: string }>(
    `SELECT reversed_amount::text AS reversed, status FROM transactions WHERE reference_id = $1`,
    [transferReferenceId],
  );
  return { amounts: rows.map((row) => row.amount), ...original.rows[0] };
}
