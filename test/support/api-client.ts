import { randomBytes } from 'node:crypto';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is, for malformed-JSON cases. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface RegisteredUser {
  referenceId: string;
  name: string;
  upiId: string;
  phoneNumber: string;
  balance: number;
  token: string;
  raw: ApiResponse;
}

let sequence = 0;

/** A UPI ID no other test has used: every test works with fresh users. */
export function uniqueUpiId(prefix = 'user'): string {
  sequence += 1;
  return `${prefix}.${process.pid}.${sequence}.${randomBytes(3).toString('hex')}@okbank`;
}

export function newIdempotencyKey(): string {
  return `key-${randomBytes(12).toString('hex')}`;
}

export function randomPhone(): string {
  return String(6_000_000_000 + Math.floor(Math.random() * 3_999_999_999));
}

/** Plain fetch over HTTP: the tests see exactly what a client sees. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    const parsed = contentType.includes('json') && text.length > 0 ? JSON.parse(text) : undefined;
    return { status: response.status, headers: response.headers, text, body: parsed as T };
  }

  get<T = any>(path: string, token?: string) {
    return this.request<T>('GET', path, { token });
  }

  post<T = any>(path: string, body: unknown, options: Omit<RequestOptions, 'body'> = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  /** POST /api/v1/transactions as `sender`, with a fresh Idempotency-Key unless one is given. */
  transfer(
    sender: { upiId: string; token: string },
    receiverUpiId: string,
    amount: number | string,
    options: { key?: string; note?: string; senderUpiId?: string } = {},
  ) {
    const body: Record<string, unknown> = { senderUpiId: options.senderUpiId ?? sender.upiId, receiverUpiId, amount };
    if (options.note !== undefined) body.note = options.note;
    return this.post('/api/v1/transactions', body, {
      token: sender.token,
      headers: { 'idempotency-key': options.key ?? newIdempotencyKey() },
    });
  }

  async login(upiId: string): Promise<string> {
    const response = await this.post('/api/v1/auth/login', { upiId });
    if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
    return response.body.accessToken;
  }

  /** Registers a fresh user (unique UPI ID) and logs them in. */
  async registerUser(
    overrides: { balance?: number | string; upiId?: string; name?: string } = {},
  ): Promise<RegisteredUser> {
    const upiId = overrides.upiId ?? uniqueUpiId();
    const response = await this.post('/api/v1/users', {
      name: overrides.name ?? 'Test User',
      upiId,
      phoneNumber: randomPhone(),
      balance: overrides.balance ?? 1000,
    });
    if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
    return { ...response.body, token: await this.login(upiId), raw: response };
  }
}
