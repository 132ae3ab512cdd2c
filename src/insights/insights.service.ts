import { Injectable, Logger } from '@nestjs/common';
import Big from 'big.js';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { AI_CIRCUIT, CircuitBreakers, type GuardedCall } from '../resilience/circuit-breakers';
import type { TransferEvent } from '../outbox/transfer-event';
import { Money } from '../common/money/money';
import { type TransactionRow, TransactionsRepository } from '../transactions/transactions.repository';
import { TransactionsService } from '../transactions/transactions.service';
import { AiInsightClient } from './ai-insight.client';
import { SpendInsightResponse } from './insight.dto';
import { type ClassifiedTransaction, classifyByRules } from './rule-based-classifier';
import { InsightSource, type SpendAssessment } from './spend-category';
import { type TransactionInsightRow, TransactionInsightsRepository } from './transaction-insights.repository';

/**
 * POST /api/v1/transactions/{id}/insights (docs/api-guide.md, "10. Spend insight"). The model's answer is stored per
 * transaction and served from then on; when the model cannot answer (not configured, timeout, 429,
 * 5xx, bad answer, open aiCircuitBreaker) the rule-based classifier answers instead. Fallback answers are not stored, so the model gets its chance next time.
 * Each completed transfer is also classified off the request path (classifyCompleted), so that the
 * endpoint is usually a read.
 */
@Injectable()
export class InsightsService {
  private readonly logger = new Logger(InsightsService.name);
  private readonly circuit: GuardedCall;

  constructor(
    circuits: CircuitBreakers,
    private readonly config: AppConfig,
    private readonly transactions: TransactionsService,
    private readonly transactionRows: TransactionsRepository,
    private readonly model: AiInsightClient,
    private readonly insights: TransactionInsightsRepository,
  ) {
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
    const transaction = await this.transactions.readable(referenceId, caller);
    const stored = await this.insights.find(transaction.id);
    if (stored) return SpendInsightResponse.of(transaction, toAssessment(stored), stored.source as InsightSource);

    const classified = toClassified(transaction);
    const answer = await this.askModel(classified);
    if (!answer)
      return SpendInsightResponse.of(transaction, classifyByRules(classified), InsightSource.RuleBasedFallback);
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
    const transaction = await this.transactionRows.findByReferenceId(event.transactionReferenceId);
    if (!transaction || (await this.insights.exists(transaction.id))) return;
    const answer = await this.askModel({
      amount: new Big(event.amount),
      note: event.note ?? null,
      receiverUpiId: event.receiverUpiId,
    });
    if (answer) await this.store(transaction.id, answer);
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
    await this.insights.insertIfAbsent(transactionId, { ...answer, source: InsightSource.AiModel });
    const stored = await this.insights.find(transactionId);
    if (!stored) throw new Error(`The insight of transaction ${transactionId} was not stored`);
    return toAssessment(stored);
  }
}

function toAssessment({ source: _, ...assessment }: TransactionInsightRow): SpendAssessment {
  return assessment;
}

function toClassified(transaction: TransactionRow): ClassifiedTransaction {
  return { amount: new Money(transaction.amount), note: transaction.note, receiverUpiId: transaction.receiverUpiId };
}
