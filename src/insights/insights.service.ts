import { Injectable, Logger } from '@nestjs/common';
import Big from 'big.js';
import { DataSource, type Repository } from 'typeorm';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { AI_CIRCUIT, CircuitBreakers, type GuardedCall } from '../resilience/circuit-breakers';
import type { TransferEvent } from '../outbox/transfer-event';
import { TransactionsService } from '../transactions/transactions.service';
import { AiInsightClient } from './ai-insight.client';
import { SpendInsightResponse } from './insight.dto';
import { type ClassifiedTransaction, classifyByRules } from './rule-based-classifier';
import { InsightSource, type SpendAssessment, type SpendCategory } from './spend-category';
import { TransactionInsight } from './transaction-insight.entity';

/**
 * Endpoint 10. The model's answer is stored per transaction and served from then on; when the model
 * cannot answer (not configured, timeout, 429, 5xx, bad answer, open aiCircuitBreaker) the rule-based
 * classifier answers instead. Fallback answers are not stored, so the model gets its chance next time.
 * Each completed transfer is also classified off the request path (classifyCompleted), so that the
 * endpoint is usually a read.
 */
@Injectable()
export class InsightsService {
  private readonly logger = new Logger(InsightsService.name);
  private readonly insights: Repository<TransactionInsight>;
  private readonly circuit: GuardedCall;

  constructor(
    circuits: CircuitBreakers,
    private readonly config: AppConfig,
    private readonly transactions: TransactionsService,
    private readonly model: AiInsightClient,
    private readonly dataSource: DataSource,
  ) {
    this.insights = this.dataSource.getRepository(TransactionInsight);
    this.circuit = circuits.create(AI_CIRCUIT, {
      timeoutMs: config.aiTimeoutMs,
      threshold: config.aiCircuitThreshold,
      halfOpenAfterMs: config.aiCircuitHalfOpenMs,
    });
  }

  async insightFor(referenceId: string, caller: AuthenticatedUser): Promise<SpendInsightResponse> {
    if (!this.config.insightsEnabled) {
      throw new ApiError(ErrorCode.FeatureDisabled, 'Spend insights are turned off on this service (INSIGHTS_ENABLED)');
    }
    const transaction = await this.transactions.get(referenceId, caller);
    const stored = await this.insights.findOneBy({ transactionId: transaction.id });
    if (stored) return SpendInsightResponse.of(transaction, toAssessment(stored), stored.source as InsightSource);

    const answer = await this.askModel(transaction);
    if (!answer)
      return SpendInsightResponse.of(transaction, classifyByRules(transaction), InsightSource.RuleBasedFallback);
    const kept = await this.store(transaction.id, answer);
    return SpendInsightResponse.of(transaction, kept, InsightSource.AiModel);
  }

  /**
   * Asks the model about a completed transfer before anyone asks the endpoint. Delivery is at least
   * once, so a transfer already classified is skipped; one the model cannot answer is left to the
   * request path and its fallback.
   */
  async classifyCompleted(event: TransferEvent): Promise<void> {
    if (!this.config.insightsEnabled || !this.model.configured) return;
    const [found] = (await this.dataSource.query(
      `SELECT t.id, i.transaction_id IS NOT NULL AS classified
       FROM transactions t LEFT JOIN transaction_insights i ON i.transaction_id = t.id
       WHERE t.reference_id = $1`,
      [event.transactionReferenceId],
    )) as { id: string; classified: boolean }[];
    if (!found || found.classified) return;
    const answer = await this.askModel({
      amount: new Big(event.amount),
      note: event.note ?? null,
      receiverUpiId: event.receiverUpiId,
    });
    if (answer) await this.store(found.id, answer);
  }

  private async askModel(transaction: ClassifiedTransaction): Promise<SpendAssessment | null> {
    if (!this.model.configured) return null;
    try {
      return await this.circuit.execute((signal) => this.model.assess(transaction, signal));
    } catch (error) {
      this.logger.warn(`AI model unavailable, rule-based fallback answers: ${(error as Error).message}`);
      return null;
    }
  }

  /** First answer wins when two requests race; both return the stored one. */
  private async store(transactionId: string, answer: SpendAssessment): Promise<SpendAssessment> {
    await this.insights
      .createQueryBuilder()
      .insert()
      .values({ transactionId, ...answer, source: InsightSource.AiModel })
      .orIgnore()
      .execute();
    return toAssessment(await this.insights.findOneByOrFail({ transactionId }));
  }
}

function toAssessment(insight: TransactionInsight): SpendAssessment {
  return {
    category: insight.category as SpendCategory,
    summary: insight.summary,
    budgetingTip: insight.budgetingTip,
    confidenceScore: insight.confidenceScore,
  };
}
