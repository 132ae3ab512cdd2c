export enum SpendCategory {
  FoodAndDining = 'FOOD_AND_DINING',
  Shopping = 'SHOPPING',
  Transportation = 'TRANSPORTATION',
  Utilities = 'UTILITIES',
  Entertainment = 'ENTERTAINMENT',
  Healthcare = 'HEALTHCARE',
  Investments = 'INVESTMENTS',
  Transfer = 'TRANSFER',
}

export enum InsightSource {
  AiModel = 'AI_MODEL',
  RuleBasedFallback = 'RULE_BASED_FALLBACK',
}

export const SPEND_CATEGORIES = Object.values(SpendCategory);

export function isSpendCategory(value: unknown): value is SpendCategory {
  return typeof value === 'string' && (SPEND_CATEGORIES as string[]).includes(value);
}

/** What an insight says about one transaction, whoever produced it. */
export interface SpendAssessment {
  category: SpendCategory;
  summary: string;
  budgetingTip: string;
  confidenceScore: number;
}
