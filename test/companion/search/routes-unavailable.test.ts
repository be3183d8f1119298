import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await buildTestApp();
});
afterAll(async () => {
  await testApp.close();
});

describe('search and answer without a vault index', () => {
  it('answer 503 with a clear message while the index is not available', async () => {
    const search = await testApp.app.inject({
      url: '/api/v1/search?q=visa',
      headers: authorized,
    });
    expect(search.statusCode).toBe(503);
    expect(search.json().error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(search.json().error.message).toMatch(/index is not available/);
    const answer = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      headers: authorized,
      payload: { question: 'visa fee?' },
    });
    expect(answer.statusCode).toBe(503);
  });

  it('still checks the token first', async () => {
    const response = await testApp.app.inject({ url: '/api/v1/search?q=visa' });
    expect(response.statusCode).toBe(401);
  });
});
