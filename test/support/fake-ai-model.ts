import type { ServerResponse } from 'node:http';
import { delay, FakeHttpServer, sendJson } from './fake-http-server';

export type AiModelMode =
  'answer' | 'rate-limited' | 'error' | 'slow' | 'garbage' | 'unknown-category' | 'overconfident';

/** An OpenAI-compatible /chat/completions endpoint with a programmable answer. */
export class FakeAiModel extends FakeHttpServer {
  mode: AiModelMode = 'answer';
  category = 'SHOPPING';
  slowMs = 5000;

  protected async answer(_call: unknown, response: ServerResponse): Promise<void> {
    switch (this.mode) {
      case 'rate-limited':
        return sendJson(response, 429, { error: { message: 'Rate limit reached' } });
      case 'error':
        return sendJson(response, 500, { error: { message: 'internal' } });
      case 'garbage':
        return sendJson(response, 200, completion('Sure! The category is probably shopping.'));
      case 'unknown-category':
        return sendJson(response, 200, completion(JSON.stringify({ ...this.assessment(), category: 'GROCERIES' })));
      case 'overconfident':
        return sendJson(response, 200, completion(JSON.stringify({ ...this.assessment(), confidenceScore: 1.7 })));
      case 'slow':
        await delay(this.slowMs);
        return sendJson(response, 200, completion(JSON.stringify(this.assessment())));
      default:
        return sendJson(response, 200, completion(JSON.stringify(this.assessment())));
    }
  }

  private assessment() {
    return {
      category: this.category,
      summary: 'A purchase from an online store.',
      budgetingTip: 'Wait a day before buying.',
      confidenceScore: 0.87,
    };
  }
}

function completion(content: string) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  };
}
