type Json = Record<string, any>;

/**
 * Whole-body examples for operations whose schema-composed example would mislead. Swagger UI
 * otherwise builds one from every property's example: the plain transfer's 201 would show the
 * reversal-only `originalReferenceId` and `reversedAmount`, and the registration body would carry
 * a PIN, after which the README's PIN-less login answers 401; a hold's capture names its hold. test/docs/docs-examples.e2e-spec.ts sends
 * these examples and compares them with real answers.
 */
const OPERATION_EXAMPLES: { path: string; method: string; where: 'request' | '201'; value: Json }[] = [
  {
    path: '/api/v1/users',
    method: 'post',
    where: 'request',
    value: { name: 'Alice Sharma', upiId: 'alice@okbank', phoneNumber: '9876543210', balance: 1500.5025 },
  },
  {
    path: '/api/v1/transactions',
    method: 'post',
    where: '201',
    value: {
      transactionId: 42,
      referenceId: '0f8fad5b-d9cb-469f-a165-70867728950e',
      senderUpiId: 'alice@okbank',
      receiverUpiId: 'bob@okbank',
      amount: 100.5025,
      status: 'COMPLETED',
      type: 'TRANSFER',
      note: 'dinner',
      createdAt: '2026-11-22T10:15:30.123Z',
    },
  },
  {
    path: '/api/v1/holds/{referenceId}/captures',
    method: 'post',
    where: '201',
    value: {
      transactionId: 43,
      referenceId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      senderUpiId: 'alice@okbank',
      receiverUpiId: 'bob@okbank',
      amount: 120,
      status: 'COMPLETED',
      type: 'TRANSFER',
      note: 'hotel deposit',
      createdAt: '2026-11-22T10:20:00.000Z',
      holdReferenceId: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
    },
  },
];

/** Sets the examples above where the document has those operations (an absent one is left alone). */
export function addOperationExamples(document: Json): void {
  for (const { path, method, where, value } of OPERATION_EXAMPLES) {
    const operation = document.paths?.[path]?.[method];
    const media =
      where === 'request'
        ? operation?.requestBody?.content?.['application/json']
        : operation?.responses?.[where]?.content?.['application/json'];
    if (media) media.example = value;
  }
}
