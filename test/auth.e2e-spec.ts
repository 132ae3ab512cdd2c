import { startTestApp, type TestApp } from './support/test-app';

describe('POST /api/v1/auth/login', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('issues a bearer token for a registered UPI ID', async () => {
    const user = await t.api.registerUser();
    const response = await t.api.post('/api/v1/auth/login', { upiId: user.upiId });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 3600,
      upiId: user.upiId,
      referenceId: user.referenceId,
    });
  });
});
