// A plain Node ESM script (no TypeScript runner) using the built client: `npm run build` here, then
// PAYMENT_SERVICE_URL=http://localhost:8080 node example.mjs
// Money stays exact both ways: 1234567890123.4567 goes in as a string and comes back as the same text.
import console from 'node:console';
import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { createPaymentClient } from './dist/index.js';

const baseUrl = process.env.PAYMENT_SERVICE_URL ?? 'http://localhost:8080';
const anonymous = createPaymentClient({ baseUrl });
const suffix = randomUUID().slice(0, 8);
const phone = () => String(9_000_000_000 + Math.floor(Math.random() * 999_999_999));

async function register(name, balance) {
  const upiId = `${name.toLowerCase()}.${suffix}@okbank`;
  const { data, error } = await anonymous.POST('/api/v1/users', {
    body: { name, upiId, phoneNumber: phone(), balance },
  });
  if (error) throw new Error(`register ${upiId}: ${JSON.stringify(error)}`);
  return data;
}

const alice = await register('Alice', '1234567890123.4567');
const bob = await register('Bob', 0);
const login = await anonymous.POST('/api/v1/auth/login', { body: { upiId: alice.upiId } });
const client = createPaymentClient({ baseUrl, headers: { authorization: `Bearer ${login.data.accessToken}` } });

const sent = await client.POST('/api/v1/transactions', {
  params: { header: { 'Idempotency-Key': `example-${suffix}` } },
  body: { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: '999999.9999', note: 'exact money' },
});
if (sent.error) throw new Error(`transfer: ${JSON.stringify(sent.error)}`);
const readBack = await client.GET('/api/v1/transactions/{id}', { params: { path: { id: sent.data.referenceId } } });
const account = await client.GET('/api/v1/users/upi/{upiId}', { params: { path: { upiId: alice.upiId } } });

// One JSON line per result; every amount is the service's own decimal text.
console.log(JSON.stringify({ openingBalance: alice.balance }));
console.log(JSON.stringify({ transferred: sent.data.amount, readBack: readBack.data.amount }));
console.log(JSON.stringify({ balanceAfter: account.data.balance }));
