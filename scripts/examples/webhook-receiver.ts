import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

// The secret shown once by POST /api/v1/admin/webhooks (or by rotate-secret).
const webhook = new Webhook(process.env.WEBHOOK_SECRET!);

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      // Checks the signature and that webhook-timestamp is within 5 minutes; throws otherwise.
      const event = webhook.verify(Buffer.concat(chunks), request.headers as Record<string, string>);
      console.log('verified', JSON.stringify(event)); // deduplicate on the webhook-id header
      response.writeHead(204).end();
    } catch {
      response.writeHead(400).end();
    }
  });
}).listen(Number(process.env.PORT ?? 3000));
