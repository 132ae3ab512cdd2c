import { startTestDatabase } from './global-setup';

/** `npm run test:quick`: the test database only; nothing runs the built service, so nothing is compiled. */
export default async function quickSetup(): Promise<void> {
  await startTestDatabase();
}
