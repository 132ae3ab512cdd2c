import createClient, { type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './openapi';

export type { components, operations, paths } from './openapi';

/** The schemas of the API by name, e.g. `Schemas['TransactionResponse']`. */
export type Schemas = components['schemas'];

/** A fetch client whose paths, parameters, bodies and answers are checked against the OpenAPI document. */
export function createPaymentClient(options: ClientOptions & { baseUrl: string }) {
  return createClient<paths>(options);
}

export type PaymentClient = ReturnType<typeof createPaymentClient>;
