import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USE_LITE_FILES } from '../../../shared/embeddings/use-lite-files';
import { TEST_TOKEN, authorized, buildTestApp, type TestApp } from '../helpers/app';

let test: TestApp;

beforeAll(async () => {
  test = await buildTestApp();
});
afterAll(async () => {
  await test.close();
});

const get = (name: string, headers: Record<string, string> = authorized) =>
  test.app.inject({ method: 'GET', url: `/api/v1/models/use-lite/files/${name}`, headers });

describe('GET /api/v1/models/use-lite/files/:name', () => {
  it('serves each allowlisted file whole, with its length, as the list records it', async () => {
    for (const file of USE_LITE_FILES) {
      const response = await get(file.name);
      expect(response.statusCode, file.name).toBe(200);
      expect(response.headers['content-length']).toBe(String(file.bytes));
      expect(response.headers['content-type']).toBe('application/octet-stream');
      expect(response.rawPayload.length).toBe(file.bytes);
      expect(createHash('sha256').update(response.rawPayload).digest('hex')).toBe(file.sha256);
    }
  });

  it('answers 404 for any other name, package.json and traversal attempts included', async () => {
    for (const name of ['package.json', 'index.js', 'tfjs-backend-wasm-threaded-simd.wasm']) {
      const response = await get(name);
      expect(response.statusCode, name).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'name' } });
    }
    // Encoded slashes and dot segments never reach the allowlist: the schema refuses them.
    for (const name of [
      '..%2Fpackage.json',
      '..%2F..%2Fpackage.json',
      '.hidden',
      '%2Fetc%2Fpasswd',
    ]) {
      expect((await get(name)).statusCode, name).toBe(400);
    }
    // A bare `..` is resolved by the URL parser to another path, where no route answers.
    expect((await get('..')).statusCode).toBe(404);
  });

  it('needs the token like every /api/ route', async () => {
    expect((await get('model.json', {})).statusCode).toBe(401);
    expect((await get('model.json', { authorization: 'Bearer wrong-token' })).statusCode).toBe(401);
    expect((await get('model.json', { authorization: `Bearer ${TEST_TOKEN}` })).statusCode).toBe(
      200,
    );
  });
});
