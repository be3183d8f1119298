import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OllamaTimeoutError, readAll } from '../../../shared/chat/ollama-http';
import { fetchOllamaHttp } from '../../../companion/chat/fetch-ollama-http';
import { FakeOllamaServer } from '../../fakes/ollama-server';

/* The companion's OllamaHttp over Node's fetch, against the fake Ollama on 127.0.0.1. */

let ollama: FakeOllamaServer;
beforeAll(async () => {
  ollama = await FakeOllamaServer.start();
});
afterEach(() => ollama.clearFailures());
afterAll(async () => {
  await ollama?.close();
});

const chatBody = JSON.stringify({ model: 'llama3.2', messages: [], stream: true });

describe('fetchOllamaHttp', () => {
  it('streams the NDJSON body as text', async () => {
    ollama.chatReply = { content: 'Grüße [1].' };
    const response = await fetchOllamaHttp().post({
      url: `${ollama.url}/api/chat`,
      body: chatBody,
      timeoutMs: 5_000,
    });
    expect(response.status).toBe(200);
    const lines = (await readAll(response.body)).trim().split('\n');
    const text = lines
      .map((line) => (JSON.parse(line) as { message: { content: string } }).message.content)
      .join('');
    expect(text).toBe('Grüße [1].');
  });

  it('answers any status, with the body', async () => {
    ollama.failWith('/api/chat', { kind: 'status-500' });
    const response = await fetchOllamaHttp().post({
      url: `${ollama.url}/api/chat`,
      body: chatBody,
      timeoutMs: 5_000,
    });
    expect(response.status).toBe(500);
    expect(await readAll(response.body)).toMatch(/fake internal error/);
  });

  it('rejects with OllamaTimeoutError when Ollama is too slow', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 2_000 });
    const pending = fetchOllamaHttp().post({
      url: `${ollama.url}/api/chat`,
      body: chatBody,
      timeoutMs: 100,
    });
    await expect(pending).rejects.toBeInstanceOf(OllamaTimeoutError);
    await expect(pending).rejects.toThrow('Ollama did not answer within 100 ms');
  });

  it('rejects at once when the caller aborts, and refuses an already aborted signal', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 2_000 });
    const controller = new AbortController();
    const pending = fetchOllamaHttp().post({
      url: `${ollama.url}/api/chat`,
      body: chatBody,
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/abort/i);
    await expect(
      fetchOllamaHttp().post({
        url: `${ollama.url}/api/chat`,
        body: chatBody,
        timeoutMs: 5_000,
        signal: controller.signal,
      }),
    ).rejects.toThrow(/abort/i);
  });

  it('rejects when nothing listens', async () => {
    const down = await FakeOllamaServer.start();
    const url = down.url;
    await down.close();
    await expect(
      fetchOllamaHttp().post({ url: `${url}/api/chat`, body: chatBody, timeoutMs: 5_000 }),
    ).rejects.toThrow(/fetch failed/);
  });
});
