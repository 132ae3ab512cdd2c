import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { requestHash } from '../../../src/idempotency/idempotency-key';

export interface MediumUser {
  id: string;
  upiId: string;
}

/** A registered user straight in SQL, with the opening CREDIT registration writes (balance = credits - debits). */
export async function newUser(db: Client, balance = '0', prefix = 'm'): Promise<MediumUser> {
  const upiId = `${prefix}${randomUUID().replaceAll('-', '').slice(0, 16)}@medium`;
  const result = await db.query<{ id: string }>(
    `WITH u AS (
       INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
       VALUES (gen_random_uuid(), 'Medium User', $1, '9000000000', $2) RETURNING id, balance
     ), opening AS (
       INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after)
       SELECT id, gen_random_uuid(), 'CREDIT', balance, 0, balance FROM u WHERE balance > 0
     )
     SELECT id FROM u`,
    [upiId, balance],
  );
  return { id: result.rows[0].id, upiId };
}

/** Calls transfer_funds as the service does (the sender is the key's owner); returns its outcome. */
export async function transferFunds(
  db: Client,
  sender: MediumUser,
  receiverUpiId: string,
  amount: string,
  key: string = randomUUID(),
): Promise<{ result: { code: string; data: Record<string, string> }; replayed: boolean }> {
  const hash = requestHash({
    senderUpiId: sender.upiId.toLowerCase(),
    receiverUpiId: receiverUpiId.toLowerCase(),
    amount,
    note: null,
  });
  const rows = await db.query(
    `SELECT result, replayed FROM transfer_funds(lower($1), $2, $3, $1, $4, $5, NULL, gen_random_uuid(), gen_random_uuid(),
       '{"requestId":"medium","instance":"/medium"}')`,
    [sender.upiId, key, hash, receiverUpiId, amount],
  );
  return rows.rows[0];
}

export type MovementRow = { result: { code: string; data: Record<string, string> }; replayed: boolean };

const MEDIUM_CONTEXT = '{"requestId":"medium","instance":"/medium"}';

/** Calls deposit_funds as the service does for an admin (`owner`); the request hash is any 64 characters. */
export async function depositFunds(
  db: Client,
  owner: string,
  receiver: MediumUser,
  amount: string,
  key: string = randomUUID(),
): Promise<MovementRow> {
  const rows = await db.query(
    `SELECT result, replayed FROM deposit_funds($1, $2, $3, $4, $5, NULL, gen_random_uuid(), $6)`,
    [owner, key, 'd'.repeat(64), receiver.upiId, amount, MEDIUM_CONTEXT],
  );
  return rows.rows[0];
}

/** Calls reverse_transfer as the service does for the original's receiver. */
export async function reverseTransfer(
  db: Client,
  receiver: MediumUser,
  originalReferenceId: string,
  amount: string,
  key: string = randomUUID(),
): Promise<MovementRow> {
  const rows = await db.query(
    `SELECT result, replayed FROM reverse_transfer(lower($1), $2, $3, $4, $5, NULL, gen_random_uuid(), gen_random_uuid(), $6)`,
    [receiver.upiId, key, 'e'.repeat(64), originalReferenceId, amount, MEDIUM_CONTEXT],
  );
  return rows.rows[0];
}

/** One item of a batch as the service builds it; key, note and ids default to fresh values. */
export interface BatchItem {
  sender: MediumUser;
  receiverUpiId: string;
  amount: string;
  key?: string;
  /** Another request under the same key: a different hash. */
  hashSalt?: string;
}

/** Calls transfer_funds_batch as TransferBatcher does, with the items in this order; one row per item. */
export async function transferBatch(db: Client, items: BatchItem[]): Promise<MovementRow[]> {
  const column = <T>(pick: (item: BatchItem) => T) => items.map(pick);
  const hashes = items.map((item) =>
    requestHash({
      senderUpiId: item.sender.upiId.toLowerCase(),
      receiverUpiId: item.receiverUpiId.toLowerCase(),
      amount: item.amount,
      note: item.hashSalt ?? null,
    }),
  );
  const rows = await db.query<MovementRow>(
    `SELECT result, replayed FROM transfer_funds_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      column((item) => item.sender.upiId.toLowerCase()),
      column((item) => item.key ?? randomUUID()),
      hashes,
      column((item) => item.sender.upiId),
      column((item) => item.receiverUpiId),
      column((item) => item.amount),
      column(() => null),
      column(() => randomUUID()),
      column(() => randomUUID()),
      column(() => ({ requestId: 'medium', instance: '/medium' })),
    ],
  );
  return rows.rows;
}
