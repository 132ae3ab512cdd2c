import type { ServerResponse } from 'node:http';
import { delay, FakeHttpServer, type RecordedCall, sendJson } from './fake-http-server';

export type UpiProviderMode = 'accept' | 'fail' | 'slow' | 'garbage';

/** The UPI verification provider of docs/decisions/0004-provider-contracts.md: POST {upiId} -> {valid, reason?, name?}. */
export class FakeUpiProvider extends FakeHttpServer {
  mode: UpiProviderMode = 'accept';
  slowMs = 3000;
  /** Lower-cased UPI IDs the provider rejects (valid: false) while it is healthy. */
  readonly rejected = new Set<string>();
  /** Lower-cased UPI ID → the account holder's name the provider answers with an acceptance. */
  readonly names = new Map<string, string>();

  callsFor(upiId: string): number {
    return this.calls.filter((c) => String(c.body?.upiId).toLowerCase() === upiId.toLowerCase()).length;
  }

  protected async answer(call: RecordedCall, response: ServerResponse): Promise<void> {
    if (this.mode === 'fail') return sendJson(response, 500, { error: 'provider down' });
    if (this.mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"valid": maybe');
      return;
    }
    if (this.mode === 'slow') await delay(this.slowMs);
    const upiId = String(call.body?.upiId ?? '').toLowerCase();
    if (this.rejected.has(upiId)) return sendJson(response, 200, { valid: false, reason: 'account closed' });
    const name = this.names.get(upiId);
    sendJson(response, 200, name === undefined ? { valid: true } : { valid: true, name });
  }
}
