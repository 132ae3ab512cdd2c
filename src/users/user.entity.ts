import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { moneyColumn } from '../database/money.transformer';
import type Big from 'big.js';

export enum AccountKind {
  User = 'USER',
  Treasury = 'TREASURY',
}

@Entity({ name: 'users' })
@Check('ck_users_balance_non_negative', `"balance" >= 0 OR "kind" = 'TREASURY'`)
@Check('ck_users_kind', `"kind" IN ('USER', 'TREASURY')`)
// Case-insensitive uniqueness lives in the migration as an expression index on lower(upi_id).
@Index('uq_users_upi_id_lower', { synchronize: false })
// The frozen accounts (src/limits), a partial index the migration owns.
@Index('ix_users_frozen', { synchronize: false })
export class User {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'pk_users',
  })
  id: string;

  @Index('uq_users_reference_id', { unique: true })
  @Column({ name: 'reference_id', type: 'uuid' })
  referenceId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'upi_id', type: 'varchar', length: 100 })
  upiId: string;

  @Column({ name: 'phone_number', type: 'varchar', length: 10 })
  phoneNumber: string;

  @Column(moneyColumn())
  balance: Big;

  @Column({ type: 'integer', default: 0 })
  version: number;

  // Only login reads it (explicitly); no other query or response carries it.
  @Column({ name: 'pin_hash', type: 'varchar', length: 200, nullable: true, select: false })
  pinHash?: string | null;
  /** USER, or TREASURY for the internal accounts money is issued from (never listed, never log in). */
  @Column({ type: 'varchar', length: 16, default: AccountKind.User })
  kind: AccountKind;

  /** Hash of this account's newest ledger entry (the head of its chain); written by the movements. */
  @Column({ name: 'last_entry_hash', type: 'char', length: 64, nullable: true, select: false })
  lastEntryHash?: string | null;

  /** Set by an admin's freeze (src/limits): the money functions read it from the locked row. */
  @Column({ name: 'frozen_at', type: 'timestamptz', nullable: true, select: false })
  frozenAt?: Date | null;

  @Column({ name: 'frozen_reason', type: 'varchar', length: 255, nullable: true, select: false })
  frozenReason?: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
