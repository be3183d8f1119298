import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withSummary } from '../../../companion/memory/link-clipper';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { FakeOpenAiCompatibleServer } from '../../fakes/openai-compatible-server';
import { repoRoot } from '../../helpers/corpora';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * A clipped link's LLM summary (docs/memory-digest-calendar.md, saved links), written on top of
 * the note after it is saved, from the fake Ollama and the fake OpenAI-compatible server; a
 * failing model leaves the note without a summary and says so in it. The category classifier
 * over an OpenAI-compatible server's tool calling.
 */

const PAGE = readFileSync(join(repoRoot, 'test/fixtures/links/what-is-rustdoc.html'));
const SUMMARY = 'Rustdoc is the tool that turns Rust doc comments into HTML documentation.';
let pages: Server;
let base: string;
let ollama: FakeOllamaServer;
let openai: FakeOpenAiCompatibleServer;
let testApp: TestApp | undefined;

beforeAll(async () => {
  pages = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  ollama = await FakeOllamaServer.start();
  openai = await FakeOpenAiCompatibleServer.start();
});
afterAll(async () => {
  pages.closeAllConnections();
  await new Promise<void>((resolve) => pages.close(() => resolve()));
  await ollama.close();
  await openai.stop();
});
afterEach(async () => {
  ollama.clearFailures();
  ollama.chatReplyFor = undefined;
  openai.toolCalls = null;
  openai.apiKey = null;
  await testApp?.close();
  testApp = undefined;
});

const linksDir = () => join(testApp!.dir, 'vault/Cairn/Links');
// Not dot files: the atomic edit's witness link of the replaced file lingers for a moment.
const clips = () =>
  existsSync(linksDir()) ? readdirSync(linksDir()).filter((name) => !name.startsWith('.')) : [];
const clipped = () => readFileSync(join(linksDir(), clips()[0]!), 'utf8');
const memoryFile = () => readFileSync(join(testApp!.dir, 'vault/Cairn/Memory.md'), 'utf8');

async function remember(text: string): Promise<{ id: string; link?: { status: string } }> {
  const response = await testApp!.app.inject({
    method: 'POST',
    url: '/api/v1/memories',
    headers: authorized,
    payload: { text },
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: string; link?: { status: string } };
}

/** The fake Ollama: the category tool call when tools are offered, else the summary. */
function ollamaAnswers(): void {
  ollama.chatReplyFor = (body) =>
    Array.isArray((body as { tools?: unknown }).tools)
      ? {
          content: '',
          toolCalls: [
            { function: { name: 'set_memory_category', arguments: { category: 'learnings' } } },
          ],
        }
      : { content: `  ${SUMMARY}\n` };
}

async function withOllama(): Promise<void> {
  testApp = await buildTestApp({
    config: { linkHosts: ['127.0.0.1'] },
    deps: {
      linkFetch: { timeoutMs: 2000, maxBytes: 1024 * 1024 },
      chat: { ollama: { baseUrl: ollama.url, model: 'llama3.2', route: false } },
    },
  });
}

describe('a clipped link’s summary from the fake Ollama', () => {
  it('goes on top of the note, under its heading, after the note is written', async () => {
    ollamaAnswers();
    await withOllama();
    const memory = await remember(`Rustdoc intro ${base}/page`);
    await testApp!.app.close();
    const note = clipped();
    expect(note).toMatch(
      new RegExp(
        `\\n# What is rustdoc\\? - The rustdoc book\\n\\n> \\[!summary\\] Summary\\n> ${SUMMARY.replace(/\./g, '\\.')}\\n\\nClipped from <${base}/page> for the memory \\[\\[Cairn/Memory#\\^${memory.id}\\]\\]`,
      ),
    );
    // The page's own text is all still there.
    expect(note).toContain('rustdoc');
    const asked = ollama.requests.filter(
      (request) =>
        request.path === '/api/chat' && !Array.isArray((request.body as { tools?: unknown }).tools),
    );
    expect(JSON.stringify(asked.at(-1)?.body)).toContain('Title: What is rustdoc?');
  });

  it('never holds up the clip: the note is written before a slow model answers', async () => {
    ollamaAnswers();
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 1500 });
    await withOllama();
    const memory = await remember('Rustdoc, to read later');
    const started = Date.now();
    const retried = await testApp!.app.inject({
      method: 'POST',
      url: `/api/v1/memories/${memory.id}/link`,
      headers: authorized,
    });
    // No URL in that memory: the retry route says so; now one with a URL.
    expect(retried.statusCode).toBe(422);
    const linked = await remember(`Rustdoc book ${base}/page`);
    const clip = await testApp!.app.inject({
      method: 'POST',
      url: `/api/v1/memories/${linked.id}/link`,
      headers: authorized,
    });
    expect(clip.statusCode).toBe(201);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(clipped()).not.toContain('[!summary]');
    await testApp!.app.close();
    expect(clipped()).toContain(`> [!summary] Summary\n> ${SUMMARY}`);
  });

  it('a failing model leaves the note without a summary and says why in it', async () => {
    ollama.failWith('/api/chat', { kind: 'status-500' });
    await withOllama();
    await remember(`Rustdoc intro ${base}/page`);
    await testApp!.app.close();
    const note = clipped();
    expect(note).toMatch(
      /\n> \[!summary\] No summary\n> The model did not summarise this page: Ollama answered 500/,
    );
    expect(note).not.toContain('> [!summary] Summary');
    expect(note).toContain('Clipped from <');
  });
});

describe('an OpenAI-compatible server for memories (fake server)', () => {
  it('categorises by its tool calling and summarises the clip, with the API key', async () => {
    openai.apiKey = 'sk-local-test';
    openai.toolCalls = [{ name: 'set_memory_category', arguments: { category: 'books' } }];
    openai.reply = ['A short guide ', 'to rustdoc.'];
    testApp = await buildTestApp({
      config: { linkHosts: ['127.0.0.1'] },
      deps: {
        linkFetch: { timeoutMs: 2000, maxBytes: 1024 * 1024 },
        memoryModel: {
          api: 'openai',
          baseUrl: openai.url,
          model: 'qwen2.5-7b-instruct',
          apiKey: 'sk-local-test',
        },
      },
    });
    const memory = await remember(`The rustdoc book ${base}/page`);
    await testApp.app.close();
    // The model's category (books) over the rules' (a URL: websites).
    expect(memoryFile()).toContain(`#memory/books (added 2026-11-22) ^${memory.id}`);
    expect(clipped()).toContain('> [!summary] Summary\n> A short guide to rustdoc.');
    const calls = openai.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(calls).toHaveLength(2);
    expect(calls.every((request) => request.authorization === 'Bearer sk-local-test')).toBe(true);
    expect(calls.every((request) => (request.body as { stream?: unknown }).stream === false)).toBe(
      true,
    );
  });

  it('a refused key: the rules’ category and a note that says why it has no summary', async () => {
    openai.apiKey = 'sk-right';
    testApp = await buildTestApp({
      config: { linkHosts: ['127.0.0.1'] },
      deps: {
        linkFetch: { timeoutMs: 2000, maxBytes: 1024 * 1024 },
        memoryModel: {
          api: 'openai',
          baseUrl: openai.url,
          model: 'qwen2.5-7b-instruct',
          apiKey: 'sk-wrong',
        },
      },
    });
    await remember(`The rustdoc book ${base}/page`);
    await testApp.app.close();
    expect(memoryFile()).toContain('#memory/websites');
    expect(clipped()).toContain(
      '> The model did not summarise this page: The model server answered 401: Incorrect API key provided.',
    );
  });
});

describe('withSummary', () => {
  it('puts the block under the heading, and leaves a note without it alone', () => {
    const note = '---\ntype: link\n---\n# Title\n\nClipped from <x>.\n';
    expect(withSummary(note, 'Title', '> [!summary] Summary\n> S.\n')).toBe(
      '---\ntype: link\n---\n# Title\n\n> [!summary] Summary\n> S.\n\nClipped from <x>.\n',
    );
    expect(withSummary('# Renamed\n', 'Title', '> x\n')).toBe('# Renamed\n');
  });
});
