import type Big from 'big.js';
import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { moneyColumn } from '../database/money.transformer';

/** Written only by the money movement functions (sql/*.sql), read by transactions.repository.ts; mapped here for the schema check. */
@Entity({ name: 'transactions' })
@Check('ck_transactions_amount_positive', '"amount" > 0')
@Check('ck_transactions_not_self', '"sender_id" <> "receiver_id"')
@Check('ck_transactions_reversed_amount', '"reversed_amount" >= 0 AND "reversed_amount" <= "amount"')
@Check('ck_transactions_type', `"type" IN ('TRANSFER', 'DEPOSIT', 'REVERSAL')`)
@Check('ck_transactions_status', `"status" IN ('COMPLETED', 'PARTIALLY_REVERSED', 'REVERSED')`)
@Index('ix_transactions_original', { synchronize: false })
// Served by the list query: (party, newest first).
@Index('ix_transactions_sender_created', { synchronize: false })
@Index('ix_transactions_receiver_created', { synchronize: false })
// Served by cursor paging sorted by amount.
@Index('ix_transactions_sender_amount', { synchronize: false })
@Index('ix_transactions_receiver_amount', { synchronize: false })
export class Transaction {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'pk_transactions',
  })
  id: string;

  @Index('uq_transactions_reference_id', { unique: true })
  @Column({ name: 'reference_id', type: 'uuid' })
  referenceId: string;

  // No foreign key (and no ORM relation: nothing reads one): the movements name only accounts they
  // hold locked, users are never deleted (trigger), and the audit reports orphans
  // (migrations/1764001100000-lean-money-movements.ts). The same for the receiver.
  @Column({ name: 'sender_id', type: 'bigint' })
  senderId: string;

  @Column({ name: 'receiver_id', type: 'bigint' })
  receiverId: string;

  @Column({ name: 'sender_upi_id', type: 'varchar', length: 100 })
  senderUpiId: string;

  @Column({ name: 'receiver_upi_id', type: 'varchar', length: 100 })
  receiverUpiId: string;

  @Column(moneyColumn())
  amount: Big;

  /** COMPLETED; a TRANSFER with reversals becomes PARTIALLY_REVERSED or REVERSED. */
  @Column({ type: 'varchar', length: 20, default: 'COMPLETED' })
  status: string;

  @Column({ type: 'varchar', length: 16, default: 'TRANSFER' })
  type: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  note: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  /** How much of a TRANSFER its reversals have returned so far. */
  @Column(moneyColumn({ name: 'reversed_amount', default: 0 }))
  reversedAmount: Big;

  /** A REVERSAL's original transfer. */
  @Column({ name: 'original_transaction_id', type: 'bigint', nullable: true })
  originalTransactionId: string | null;

  @ManyToOne(() => Transaction, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'original_transaction_id', foreignKeyConstraintName: 'fk_transactions_original' })
  originalTransaction?: Transaction;

  @Column({ name: 'original_reference_id', type: 'uuid', nullable: true })
  originalReferenceId: string | null;

  /** sha256 of the immutable fields, written by a trigger on insert (migrations/1764003500000-tamper-evident-transactions.ts). */
  @Column({ name: 'content_hash', type: 'char', length: 64, select: false, insert: false, update: false })
  contentHash?: string;
}
