import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from './webhook-secret';
import { signWebhook } from './webhook-signature';

describe('signWebhook', () => {
  it('signs exactly as the standardwebhooks package does, and its verifier accepts the result', () => {
    for (const body of ['{"amount":"1.0000"}', '{"note":"चाय ☕"}', '']) {
      const secret = newWebhookSecret();
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = signWebhook(secret, 'evt-1', timestamp, body);
      expect(signature).toBe(new Webhook(secret).sign('evt-1', new Date(timestamp * 1000), body));
      const headers = { 'webhook-id': 'evt-1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
      expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
      expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    }
  });

  it('uses the new key once a secret is rotated', () => {
    const [before, after] = [newWebhookSecret(), newWebhookSecret()];
    expect(signWebhook(before, 'evt-1', 1_700_000_000, '{}')).not.toBe(
      signWebhook(after, 'evt-1', 1_700_000_000, '{}'),
    );
  });
});
