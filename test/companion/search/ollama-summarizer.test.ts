import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  OllamaSummarizer,
  SummaryError,
  checkCitations,
  summarizerConfigFromEnv,
} from '../../../companion/search/ollama-summarizer';
import type { Passage } from '../../../companion/search/extractive-answer';
import { FakeOllamaServer } from '../../fakes/ollama-server';

const passages: Passage[] = [
  {
    text: 'the visa fee is €90',
    citation: {
      type: 'note',
      path: 'Travel/Visa rules.md',
      title: 'Visa rules summary',
      excerpt: 'the visa fee is €90',
      lines: [12, 12],
      score: 0.9,
    },
  },
];

let ollama: FakeOllamaServer;
beforeAll(async () => {
  ollama = await FakeOllamaServer.start();
});
afterAll(async () => {
  await ollama.close();
});
beforeEach(() => {
  ollama.clearFailures();
  ollama.requests.length = 0;
});

describe('OllamaSummarizer', () => {
  it('sends only the numbered passages and returns a cited summary', async () => {
    ollama.chatReply = { content: 'The standard visa fee is €90 [1].' };
    const summarizer = new OllamaSummarizer({ baseUrl: ollama.url, model: 'llama3.2' });
    await expect(summarizer.summarize('visa fee?', passages)).resolves.toBe(
      'The standard visa fee is €90 [1].',
    );
    const request = ollama.requests.find((r) => r.path === '/api/chat');
    const body = request?.body as { stream: boolean; messages: Array<{ content: string }> };
    expect(body.stream).toBe(false);
    expect(body.messages[1]?.content).toContain('[1] (Visa rules summary) the visa fee is €90');
    expect(body.messages[1]?.content).toContain('Question: visa fee?');
  });

  it('refuses a summary that cites nothing or a passage that does not exist', async () => {
    const summarizer = new OllamaSummarizer({ baseUrl: ollama.url, model: 'llama3.2' });
    ollama.chatReply = { content: 'The fee is €90.' };
    await expect(summarizer.summarize('q', passages)).rejects.toThrow(/cites no passage/);
    ollama.chatReply = { content: 'The fee is €90 [2].' };
    await expect(summarizer.summarize('q', passages)).rejects.toThrow(/cites \[2\]/);
  });

  it('turns HTTP errors, broken JSON, wrong shapes and an unknown model into SummaryError', async () => {
    const summarizer = new OllamaSummarizer({ baseUrl: ollama.url, model: 'llama3.2' });
    ollama.failWith('/api/chat', { kind: 'status-500' });
    await expect(summarizer.summarize('q', passages)).rejects.toThrow(/HTTP 500/);
    ollama.failWith('/api/chat', { kind: 'malformed-json' });
    await expect(summarizer.summarize('q', passages)).rejects.toThrow(/not JSON/);
    ollama.failWith('/api/chat', { kind: 'wrong-shape' });
    await expect(summarizer.summarize('q', passages)).rejects.toThrow(/no answer text/);
    ollama.clearFailures();
    const unknown = new OllamaSummarizer({ baseUrl: ollama.url, model: 'nope' });
    await expect(unknown.summarize('q', passages)).rejects.toBeInstanceOf(SummaryError);
  });

  it('times out on a slow server and reports an unreachable one', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 2_000 });
    const slow = new OllamaSummarizer({ baseUrl: ollama.url, model: 'llama3.2', timeoutMs: 50 });
    await expect(slow.summarize('q', passages)).rejects.toThrow(/unreachable/);
    const down = new OllamaSummarizer({ baseUrl: 'http://127.0.0.1:9', model: 'llama3.2' });
    await expect(down.summarize('q', passages)).rejects.toThrow(/unreachable/);
  });
});

describe('checkCitations', () => {
  it('accepts markers within range', () => {
    expect(checkCitations('a [1] b [2][1]', 2)).toBe('a [1] b [2][1]');
    expect(() => checkCitations('a [0]', 2)).toThrow(/\[0\]/);
  });
});

describe('summarizerConfigFromEnv', () => {
  it('is off unless a chat model is named', () => {
    expect(summarizerConfigFromEnv({})).toBeNull();
    expect(summarizerConfigFromEnv({ CAIRN_OLLAMA_CHAT_MODEL: '  ' })).toBeNull();
    expect(summarizerConfigFromEnv({ CAIRN_OLLAMA_CHAT_MODEL: 'llama3.2' })).toEqual({
      baseUrl: 'http://127.0.0.1:11434',
      model: 'llama3.2',
      unsupportedClaims: 'mark',
    });
  });

  it('reads what becomes of unsupported claims, and refuses anything else', () => {
    const env = { CAIRN_OLLAMA_CHAT_MODEL: 'llama3.2', CAIRN_UNSUPPORTED_CLAIMS: 'remove' };
    expect(summarizerConfigFromEnv(env)?.unsupportedClaims).toBe('remove');
    expect(() => summarizerConfigFromEnv({ ...env, CAIRN_UNSUPPORTED_CLAIMS: 'hide' })).toThrow(
      /CAIRN_UNSUPPORTED_CLAIMS must be "mark" or "remove", got "hide"/,
    );
  });

  it('names the variable when the URL is wrong', () => {
    expect(() =>
      summarizerConfigFromEnv({ CAIRN_OLLAMA_CHAT_MODEL: 'x', CAIRN_OLLAMA_URL: 'ftp://host' }),
    ).toThrow(/CAIRN_OLLAMA_URL/);
  });
});
