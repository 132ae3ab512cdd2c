import { Agent, request } from 'node:http';

export interface HttpResult {
  status: number;
  body: string;
}

/** What sends a request and reads its whole answer: HttpDriver, or LeanHttpClient for the timed transfers. */
export interface HttpSender {
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult>;
}

/** Plain node:http with keep-alive, a socket per closed-loop client or open-loop connection. */
export class HttpDriver implements HttpSender {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: URL,
    sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          host: this.baseUrl.hostname,
          port: this.baseUrl.port,
          method,
          path,
          headers: payload ? { 'content-type': 'application/json', ...headers } : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
