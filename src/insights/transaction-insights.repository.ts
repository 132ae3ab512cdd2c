import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { SpendAssessment } from './spend-category';

/** A transaction_insights row as the reads return it. */
export interface TransactionInsightRow extends SpendAssessment {
  source: string;
}

const BY_TRANSACTION = `
  SELECT category, summary, budgeting_tip AS "budgetingTip", confidence_score AS "confidenceScore", source
  FROM transaction_insights WHERE transaction_id = $1`;

const EXISTS_FOR = 'SELECT EXISTS (SELECT 1 FROM transaction_insights WHERE transaction_id = $1) AS found';

// First answer wins when two requests race: the later insert is ignored.
const INSERT_IF_ABSENT = `
  INSERT INTO transaction_insights (transaction_id, category, summary, budgeting_tip, confidence_score, source)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (transaction_id) DO NOTHING`;

/** transaction_insights: a model's answer per transaction, kept so asking again does not call the model again. */
@Injectable()
export class TransactionInsightsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async find(transactionId: string): Promise<TransactionInsightRow | null> {
    const { rows } = await this.pool.query<TransactionInsightRow>(BY_TRANSACTION, [transactionId]);
    return rows[0] ?? null;
  }

  async exists(transactionId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ found: boolean }>(EXISTS_FOR, [transactionId]);
    return rows[0].found;
  }

  async insertIfAbsent(transactionId: string, insight: TransactionInsightRow): Promise<void> {
    await this.pool.query(INSERT_IF_ABSENT, [
      transactionId,
      insight.category,
      insight.summary,
      insight.budgetingTip,
      insight.confidenceScore,
      insight.source,
    ]);
  }
}
