import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A domain event written in the same transaction as the change it describes; the relay publishes it. */
@Entity({ name: 'outbox_events' })
@Index('ix_outbox_events_pending', { synchronize: false })
export class OutboxEvent {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'pk_outbox_events',
  })
  id: string;

  @Index('uq_outbox_events_event_id', { unique: true })
  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: string;

  /** The Kafka record key: the sender's UPI ID, so one sender's events stay in order. */
  @Column({ name: 'aggregate_key', type: 'varchar', length: 100 })
  aggregateKey: string;

  /** The event JSON exactly as published. */
  @Column({ type: 'text' })
  payload: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_error', type: 'varchar', length: 1000, nullable: true })
  lastError: string | null;
}
