import type { OpenAPIObject } from '@nestjs/swagger';

type Json = Record<string, any>;

interface LinkSpec {
  from: { operationId: string; status: string };
  name: string;
  link: Json;
}

/**
 * How one answer feeds the next request along the money path: register → login → transfer →
 * read the transaction → reverse it. Clients read them as documentation; stateful fuzzers
 * (schemathesis) follow them, which is how a fuzz run gets past registration to real transfers.
 */
const LINKS: LinkSpec[] = [
  {
    from: { operationId: 'UsersController_register', status: '201' },
    name: 'LogIn',
    link: {
      operationId: 'AuthController_login',
      description: 'Log in as the user just registered',
      requestBody: { upiId: '$response.body#/upiId' },
    },
  },
  {
    from: { operationId: 'UsersController_register', status: '201' },
    name: 'PayTheNewUser',
    link: {
      operationId: 'TransactionsController_create',
      description: 'Pay the user just registered',
      requestBody: { receiverUpiId: '$response.body#/upiId' },
    },
  },
  {
    from: { operationId: 'AuthController_login', status: '200' },
    name: 'TransferAsThisUser',
    link: {
      operationId: 'TransactionsController_create',
      description: 'Send money as the user just logged in, with the token just issued',
      parameters: { 'header.Authorization': 'Bearer {$response.body#/accessToken}' },
      requestBody: { senderUpiId: '$response.body#/upiId' },
    },
  },
  {
    from: { operationId: 'TransactionsController_create', status: '201' },
    name: 'ReadTheTransaction',
    link: {
      operationId: 'TransactionsController_get',
      description: 'Read the transaction just created',
      parameters: { id: '$response.body#/referenceId' },
    },
  },
  {
    from: { operationId: 'TransactionsController_create', status: '201' },
    name: 'ReverseTheTransaction',
    link: {
      operationId: 'ReversalsController_create',
      description: "Reverse the transfer just made (its receiver's right)",
      parameters: { referenceId: '$response.body#/referenceId' },
    },
  },
];

/** Adds the links to the responses they start from; a link naming an operation that is gone fails the build of the document. */
export function addLinks(document: OpenAPIObject): void {
  const operations = new Map<string, Json>();
  for (const item of Object.values(document.paths) as Json[]) {
    for (const operation of Object.values(item) as Json[]) {
      if (typeof operation?.operationId === 'string') operations.set(operation.operationId, operation);
    }
  }
  for (const { from, name, link } of LINKS) {
    const source = operations.get(from.operationId)?.responses?.[from.status] as Json | undefined;
    if (!source) throw new Error(`OpenAPI link ${name}: no ${from.status} answer of ${from.operationId}`);
    if (!operations.has(link.operationId)) throw new Error(`OpenAPI link ${name}: no operation ${link.operationId}`);
    source.links = { ...source.links, [name]: link };
  }
}
