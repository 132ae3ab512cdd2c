import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { isSpendCategory, SPEND_CATEGORIES, type SpendAssessment } from './spend-category';
import type { ClassifiedTransaction } from './rule-based-classifier';

export class ModelAnswerError extends Error {}

const SYSTEM_PROMPT = [
  'You categorise peer-to-peer UPI payments made in India (amounts in INR).',
  `Answer with one JSON object only: {"category": one of ${SPEND_CATEGORIES.join(', ')},`,
  '"summary": one sentence about the payment, "budgetingTip": one practical sentence,',
  '"confidenceScore": a number from 0 to 1}.',
].join(' ');

/**
 * An OpenAI-compatible Chat Completions client (OpenAI, Ollama, vLLM...: only AI_BASE_URL,
 * AI_MODEL and AI_API_KEY differ). Throws on anything but a well-formed answer.
 */
@Injectable()
export class AiInsightClient {
  constructor(private readonly config: AppConfig) {}

  get configured(): boolean {
    return this.config.aiBaseUrl !== undefined;
  }

  async assess(transaction: ClassifiedTransaction, signal: AbortSignal): Promise<SpendAssessment> {
    const response = await fetch(`${this.config.aiBaseUrl!.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.config.aiApiKey ? { authorization: `Bearer ${this.config.aiApiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.config.aiModel,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          {
            role: 'user',
            content: JSON.stringify({
              amountInr: transaction.amount.toFixed(2),
              note: transaction.note ?? '',
              receiver: transaction.receiverUpiId,
            }),
          },
        ],
      }),
      signal,
    });
    if (!response.ok) throw new ModelAnswerError(`the model answered HTTP ${response.status}`);
    const completion = (await response.json().catch(() => undefined)) as
      { choices?: { message?: { content?: unknown } }[] } | undefined;
    return parseAssessment(completion?.choices?.[0]?.message?.content);
  }
}

function parseAssessment(content: unknown): SpendAssessment {
  if (typeof content !== 'string') throw new ModelAnswerError('the model answered without message content');
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(content);
  } catch {
    throw new ModelAnswerError('the model answered with content that is not JSON');
  }
  const { category, summary, budgetingTip, confidenceScore } = answer ?? {};
  if (!isSpendCategory(category))
    throw new ModelAnswerError(`the model answered an unknown category ${String(category)}`);
  if (
    typeof summary !== 'string' ||
    summary.trim() === '' ||
    typeof budgetingTip !== 'string' ||
    budgetingTip.trim() === ''
  ) {
    throw new ModelAnswerError('the model answered without a summary or budgeting tip');
  }
  if (typeof confidenceScore !== 'number' || !(confidenceScore >= 0 && confidenceScore <= 1)) {
    throw new ModelAnswerError('the model answered a confidence score outside [0, 1]');
  }
  return { category, summary: summary.slice(0, 500), budgetingTip: budgetingTip.slice(0, 500), confidenceScore };
}
