import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Transaction } from '../transactions/transaction.entity';

/** A model's answer about a transaction, kept so asking again does not call the model again. */
@Entity({ name: 'transaction_insights' })
export class TransactionInsight {
  @PrimaryColumn({ name: 'transaction_id', type: 'bigint', primaryKeyConstraintName: 'pk_transaction_insights' })
  transactionId: string;

  @ManyToOne(() => Transaction, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'transaction_id', foreignKeyConstraintName: 'fk_transaction_insights_transaction' })
  transaction?: Transaction;

  @Column({ type: 'varchar', length: 32 })
  category: string;

  @Column({ type: 'varchar', length: 500 })
  summary: string;

  @Column({ name: 'budgeting_tip', type: 'varchar', length: 500 })
  budgetingTip: string;

  @Column({ name: 'confidence_score', type: 'double precision' })
  confidenceScore: number;

  @Column({ type: 'varchar', length: 32 })
  source: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
