import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './openapi';
import { type MoneyIn, type MoneyOut, parseExactJson } from './exact-money';

export type { components, operations, paths } from './openapi';
export { type Decimal, MONEY_FIELDS, type MoneyIn, type MoneyOut, parseExactJson } from './exact-money';

/** The schemas of the API by name as they arrive, e.g. `Schemas['TransactionResponse']` (money as strings). */
export type Schemas = MoneyOut<components['schemas']>;

/** One operation with money as `string | number` in its request body and as strings in its answers. */
type ExactOperation<Operation> = {
  [K in keyof Operation]: K extends 'requestBody'
    ? MoneyIn<Operation[K]>
    : K extends 'responses'
      ? MoneyOut<Operation[K]>
      : Operation[K];
};

/** The API's paths with exact money, as this client sends and reads them. */
export type ExactPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: ExactOperation<paths[Path][Method]> };
};

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;

/**
 * A fetch client whose paths, parameters, bodies and answers are checked against the OpenAPI
 * document, and whose JSON answers are read with money exact (see exact-money.ts). A call that
 * asks for another `parseAs` ('text' for a CSV statement, 'stream'...) gets exactly that.
 */
export function createPaymentClient(options: ClientOptions & { baseUrl: string }): Client<ExactPaths> {
  const client = createClient<any>(options);
  const exact = { ...client } as Record<string, unknown>;
  for (const method of METHODS) {
    const call = client[method] as unknown as (url: string, init: object) => Promise<{ data?: unknown }>;
    exact[method] = async (url: string, init: { parseAs?: string } = {}) => {
      if (init.parseAs !== undefined && init.parseAs !== 'json') return call(url, init);
      const result = await call(url, { ...init, parseAs: 'text' });
      if (typeof result.data !== 'string') return result;
      return { ...result, data: result.data === '' ? undefined : parseExactJson(result.data) };
    };
  }
  return exact as unknown as Client<ExactPaths>;
}

export type PaymentClient = ReturnType<typeof createPaymentClient>;
