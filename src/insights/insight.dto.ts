import { ApiProperty } from '@nestjs/swagger';
import { moneyJson } from '../common/money/money';
import type { TransactionRow } from '../transactions/transactions.repository';
import { InsightSource, SpendCategory, type SpendAssessment } from './spend-category';

export class SpendInsightResponse {
  @ApiProperty({ format: 'uuid' }) transactionReferenceId: string;
  @ApiProperty({ enum: SpendCategory, example: SpendCategory.FoodAndDining }) category: SpendCategory;
  @ApiProperty({ type: 'number', example: 450 }) amount: RawJson;
  @ApiProperty({ example: '₹450.00 to zomato@okaxis looks like food and dining.' }) summary: string;
  @ApiProperty({ example: 'Set a weekly food budget.' }) budgetingTip: string;
  @ApiProperty({ type: 'number', format: 'double', minimum: 0, maximum: 1, example: 0.9 }) confidenceScore: number;
  @ApiProperty({ enum: InsightSource }) source: InsightSource;

  static of(
    transaction: Pick<TransactionRow, 'referenceId' | 'amount'>,
    assessment: SpendAssessment,
    source: InsightSource,
  ): SpendInsightResponse {
    return {
      transactionReferenceId: transaction.referenceId,
      category: assessment.category,
      amount: moneyJson(transaction.amount),
      summary: assessment.summary,
      budgetingTip: assessment.budgetingTip,
      confidenceScore: assessment.confidenceScore,
      source,
    };
  }
}
