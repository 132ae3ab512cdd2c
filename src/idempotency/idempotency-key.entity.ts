import type { StoredOutcome } from './stored-outcome';
import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * What a stored outcome was: SUCCESS for completed, FAILED for a refusal. The CHECK still admits
 * the claim statuses of versions before outcomes existed; nothing writes them any more, and a row
 * with one (a hand-written row) is answered 409, never replayed (idempotency_claim.sql).
 */
export enum IdempotencyStatus {
  Initiated = 'INITIATED',
  Processing = 'PROCESSING',
  Success = 'SUCCESS',
  Failed = 'FAILED',
}

/** One stored outcome per (user, key): the request hash, and the outcome to replay. */
@Entity({ name: 'idempotency_keys' })
@Check('ck_idempotency_keys_status', `"status" IN ('INITIATED', 'PROCESSING', 'SUCCESS', 'FAILED')`)
@Index('uq_idempotency_keys_owner_key', ['ownerUpiId', 'key'], { unique: true })
export class IdempotencyKey {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'pk_idempotency_keys',
  })
  id: string;

  /** Lower-cased UPI ID of the caller; keys are scoped per user. */
  @Column({ name: 'owner_upi_id', type: 'varchar', length: 100 })
  ownerUpiId: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255 })
  key: string;

  /** SHA-256 (hex) of the canonical request body. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash: string;

  @Column({ type: 'varchar', length: 16 })
  status: IdempotencyStatus;

  /** The HTTP status of the outcome, for operators at a glance (outcome_response_status.sql). */
  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The typed outcome the movement answered, rendered again on every replay. */
  @Column({ type: 'jsonb', nullable: true })
  outcome: StoredOutcome | null;

  @Index('ix_idempotency_keys_created')
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
