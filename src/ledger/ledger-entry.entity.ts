import type Big from 'big.js';
import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { moneyColumn } from '../database/money.transformer';

export enum EntryType {
  Debit = 'DEBIT',
  Credit = 'CREDIT',
}

/** Append-only: a trigger in the database refuses UPDATE and DELETE on this table. */
@Entity({ name: 'ledger_entries' })
@Check('ck_ledger_entries_amount_positive', '"amount" > 0')
@Check('ck_ledger_entries_entry_type', `"entry_type" IN ('DEBIT', 'CREDIT')`)
// The treasury (users 0 to -7) runs negative: its balance is minus all money issued.
@Check('ck_ledger_entries_balance_after_non_negative', '"balance_after" >= 0 OR "user_id" <= 0')
// Served by the ledger history query: (user, newest first).
@Index('ix_ledger_entries_user_created', { synchronize: false })
@Index('ix_ledger_entries_transaction', { synchronize: false })
export class LedgerEntry {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'pk_ledger_entries',
  })
  id: string;

  // No foreign key (and no ORM relation: nothing reads one): the movements write entries only for
  // accounts they hold locked, users are never deleted (trigger), and the audit reports orphans
  // (migrations/1764001100000-lean-money-movements.ts).
  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  /** Null for an opening balance, which has no transfer behind it. No foreign key, as for the user. */
  @Column({ name: 'transaction_id', type: 'bigint', nullable: true })
  transactionId: string | null;

  @Column({ name: 'transaction_reference_id', type: 'uuid' })
  transactionReferenceId: string;

  @Column({ name: 'entry_type', type: 'varchar', length: 6 })
  entryType: EntryType;

  @Column(moneyColumn())
  amount: Big;

  @Column(moneyColumn({ name: 'balance_before' }))
  balanceBefore: Big;

  @Column(moneyColumn({ name: 'balance_after' }))
  balanceAfter: Big;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  /** sha256 chained to the account's previous entry (ledger_entry_hash in the migrations). */
  @Column({ type: 'char', length: 64, select: false })
  hash: string;
}
