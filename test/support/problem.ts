import type { ApiResponse } from './api-client';

/** Every error in every test is checked for the full problem+json shape. */
export function expectProblem(response: ApiResponse, status: number, slug?: string): void {
  expect({ status: response.status, text: response.text }).toEqual({ status, text: expect.any(String) });
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = response.body;
  expect(body).toEqual(
    expect.objectContaining({
      type: expect.stringMatching(/^https?:\/\/.+\/[a-z-]+$/),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.stringMatching(/^\//),
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    }),
  );
  expect(response.headers.get('x-request-id')).toBe(body.requestId);
  expect(response.text).not.toMatch(/\bat .+\.(js|ts):\d+/);
  if (slug) expect(body.type).toMatch(new RegExp(`/${slug}$`));
}
