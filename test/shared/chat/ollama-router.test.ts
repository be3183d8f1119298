import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatEngine } from '../../../shared/chat/chat-engine';
import { OllamaPhraser } from '../../../shared/chat/ollama-phraser';
import { OllamaRouter, systemPrompt } from '../../../shared/chat/ollama-router';
import { toolSpecs } from '../../../shared/chat/tool-schemas';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { ManualClock } from '../../fakes/clock';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { FakeVault, reminderWriterOf } from './fake-chat-ports';
import { NodeOllamaHttp } from './node-ollama-http';

const ZONE = 'Europe/Berlin';
const NOW = Date.parse('2026-11-22T10:30:00+01:00');
const context = { now: NOW, zone: ZONE };
let ollama: FakeOllamaServer;
const http = new NodeOllamaHttp();

beforeEach(async () => {
  ollama = await FakeOllamaServer.start();
});
afterEach(async () => {
  await ollama.close();
});

function router(timeoutMs = 5_000, model = 'llama3.2') {
  return new OllamaRouter({ http, baseUrl: `${ollama.url}/`, model, timeoutMs });
}

function replyWithCall(name: string, args: unknown): void {
  ollama.chatReply = {
    content: '',
    toolCalls: [{ function: { name, arguments: args as Record<string, unknown> } }],
  };
}

describe('OllamaRouter', () => {
  it('asks /api/chat once, non-streaming, with the tools and the date in the zone', async () => {
    replyWithCall('search', { query: 'visa' });
    const routed = await router().route('anything on the visa?', context);
    expect(routed).toEqual({
      kind: 'tool',
      call: { name: 'search', args: { query: 'visa' } },
      rule: 'llm',
      via: 'llm',
    });
    expect(ollama.requests).toHaveLength(1);
    const request = ollama.requests[0]!;
    expect(request.path).toBe('/api/chat');
    expect(request.body).toMatchObject({
      model: 'llama3.2',
      stream: false,
      tools: toolSpecs(),
      messages: [
        { role: 'system', content: systemPrompt(context) },
        { role: 'user', content: 'anything on the visa?' },
      ],
    });
    expect(systemPrompt(context)).toContain('Now it is Sunday 2026-11-22 10:30 in Europe/Berlin.');
  });

  it("fills a reminder's zone and drops nulls the model sends for optional arguments", async () => {
    replyWithCall('create_reminder', {
      title: 'Call the bank',
      due: '2026-11-23T08:00',
      repeat: null,
    });
    const routed = await router().route('bank monday 8', context);
    expect(routed).toMatchObject({
      via: 'llm',
      call: {
        name: 'create_reminder',
        args: { title: 'Call the bank', due: '2026-11-23T08:00', timezone: ZONE },
      },
    });
  });

  it.each([
    [
      'an unknown tool',
      () => replyWithCall('delete_vault', {}),
      /^the model's tool call was rejected: unknown tool "delete_vault"/,
    ],
    [
      'arguments that are not JSON',
      () => replyWithCall('search', '{"query": "vis'),
      /rejected: search: arguments are not valid JSON/,
    ],
    [
      'arguments that break the schema',
      () => replyWithCall('snooze_reminder', { id: 'r-1', minutes: 'ten' }),
      /rejected: snooze_reminder: .*minutes/,
    ],
    [
      'no tool at all',
      () => (ollama.chatReply = { content: 'Sure! The fee is $50.' }),
      /^the model chose no tool$/,
    ],
    [
      'two tools',
      () =>
        (ollama.chatReply = {
          content: '',
          toolCalls: [
            { function: { name: 'search', arguments: { query: 'a' } } },
            { function: { name: 'search', arguments: { query: 'b' } } },
          ],
        }),
      /proposed 2 tool calls; Cairn runs one/,
    ],
    [
      'HTTP 500',
      () => ollama.failWith('/api/chat', { kind: 'status-500' }),
      /^Ollama answered 500: fake internal error$/,
    ],
    [
      'a body that is not JSON',
      () => ollama.failWith('/api/chat', { kind: 'malformed-json' }),
      /^Ollama's reply was not JSON$/,
    ],
    [
      'JSON of the wrong shape',
      () => ollama.failWith('/api/chat', { kind: 'wrong-shape' }),
      /^the model chose no tool$/,
    ],
  ])('falls back to the rules on %s, keeping the reason', async (_, setUp, reason) => {
    setUp();
    const routed = await router().route('what is the visa fee?', context);
    expect(routed).toMatchObject({
      kind: 'tool',
      via: 'rules',
      call: { name: 'answer', args: { question: 'what is the visa fee?' } },
    });
    expect(routed.fallbackReason).toMatch(reason);
  });

  it('falls back on an unknown model with Ollama’s own message', async () => {
    const routed = await router(5_000, 'mistral').route('find notes about taxes', context);
    expect(routed).toMatchObject({ via: 'rules', call: { name: 'search' } });
    expect(routed.fallbackReason).toBe(
      'Ollama answered 404: model "mistral" not found, try pulling it first',
    );
  });

  it('falls back on a timeout', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 5_000 });
    const started = Date.now();
    const routed = await router(150).route('remind me tomorrow 5pm dentist', context);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(routed).toMatchObject({ via: 'rules', call: { name: 'create_reminder' } });
    expect(routed.fallbackReason).toBe('Ollama did not answer within 150 ms');
  });

  it('falls back when the server is down', async () => {
    const url = ollama.url;
    await ollama.close();
    const down = new OllamaRouter({ http, baseUrl: url, model: 'llama3.2' });
    const routed = await down.route('find notes about taxes', context);
    expect(routed).toMatchObject({ via: 'rules', call: { name: 'search' } });
    expect(routed.fallbackReason).toMatch(/^Ollama is not reachable \(.*ECONNREFUSED/);
    ollama = await FakeOllamaServer.start(); // for afterEach
  });

  it('asks for the time of an untimed reminder even when the model made one up', async () => {
    replyWithCall('create_reminder', { title: 'Call mom', due: '2026-11-22T12:00' });
    const routed = await router().route('remind me to call mom', context);
    expect(routed).toMatchObject({ kind: 'reply', via: 'rules', missingTime: true });
    // A timed one goes through.
    replyWithCall('create_reminder', { title: 'Call mom', due: '2026-11-22T17:00' });
    expect(await router().route('remind me at 5pm to call mom', context)).toMatchObject({
      via: 'llm',
      call: { name: 'create_reminder' },
    });
  });

  it('never asks the model about bad input or small talk', async () => {
    expect(await router().route('', context)).toMatchObject({ kind: 'invalid', via: 'rules' });
    expect(await router().route('thanks!', context)).toMatchObject({ kind: 'reply' });
    expect(await router().route('help', context)).toMatchObject({ kind: 'reply' });
    expect(ollama.requests).toHaveLength(0);
  });
});

describe('OllamaPhraser', () => {
  const passages = [
    {
      type: 'note' as const,
      path: 'Travel/Visa rules.md',
      title: 'Visa rules',
      heading: 'Fees',
      lines: [3, 4] as [number, number],
      excerpt: 'The visa fee is $50.',
      score: 0.8,
    },
  ];

  it('streams the answer in pieces from passages only', async () => {
    ollama.chatReply = { content: 'The fee is $50 [1].' };
    const phraser = new OllamaPhraser({ http, baseUrl: ollama.url, model: 'llama3.2' });
    const pieces: string[] = [];
    for await (const piece of phraser.phrase({ question: 'visa fee?', passages })) {
      pieces.push(piece);
    }
    expect(pieces.join('')).toBe('The fee is $50 [1].');
    expect(pieces.length).toBeGreaterThan(1);
    const body = ollama.requests[0]!.body as { stream: boolean; messages: { content: string }[] };
    expect(body.stream).toBe(true);
    expect(body.messages[1]!.content).toBe(
      'Passages:\n\n[1] Visa rules (Travel/Visa rules.md > Fees)\nThe visa fee is $50.\n\nQuestion: visa fee?',
    );
  });

  it('throws with Ollama’s message on an HTTP error and on a broken stream', async () => {
    const phraser = new OllamaPhraser({ http, baseUrl: ollama.url, model: 'llama3.2' });
    const drain = async () => {
      for await (const piece of phraser.phrase({ question: 'q', passages })) void piece;
    };
    ollama.failWith('/api/chat', { kind: 'status-500' });
    await expect(drain()).rejects.toThrow('Ollama answered 500: fake internal error');
    ollama.failWith('/api/chat', { kind: 'malformed-json' });
    await expect(drain()).rejects.toThrow('Ollama sent a line that is not JSON');
  });

  it('stops when the caller aborts', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 5_000 });
    const phraser = new OllamaPhraser({ http, baseUrl: ollama.url, model: 'llama3.2' });
    const listeners: Array<() => void> = [];
    const signal = {
      aborted: false,
      addEventListener: (_: 'abort', listener: () => void) => listeners.push(listener),
      removeEventListener: () => {},
    };
    const drain = (async () => {
      for await (const piece of phraser.phrase({ question: 'q', passages, signal })) void piece;
    })();
    setTimeout(() => listeners.forEach((listener) => listener()), 50);
    await expect(drain).rejects.toThrow('aborted');
  });
});

describe('ChatEngine with Ollama routing and phrasing over HTTP', () => {
  it('routes with the model, answers from the passages, streams the phrasing with citations', async () => {
    const clock = new ManualClock(NOW);
    const vault = new FakeVault(clock);
    vault.addNote('Visa rules', 'The visa fee is $50 for standard processing.');
    ollama.chatReply = {
      content: 'The fee is $50 [1], not $80 [4].',
      toolCalls: [{ function: { name: 'answer', arguments: { question: 'visa fee' } } }],
    };
    const engine = new ChatEngine({
      clock,
      zone: () => ZONE,
      notes: vault,
      reminderReader: vault,
      reminderWriter: reminderWriterOf(vault),
      searcher: vault,
      answerer: vault,
      router: router(),
      phraser: new OllamaPhraser({ http, baseUrl: ollama.url, model: 'llama3.2' }),
    });
    const events: ChatEvent[] = [];
    for await (const event of engine.send('how much was the visa again')) events.push(event);
    const text = events.map((e) => (e.type === 'token' ? e.text : '')).join('');
    // [4] is no passage: the marker goes, and "$80", backed by no cited passage, is marked.
    expect(text).toBe('The fee is $50 [1], not $80 . ⚠ _(unsupported: “80” is not in passage 1)_');
    // Phrasing streams a sentence at a time, each once checked: one sentence here, one token.
    expect(events.filter((e) => e.type === 'token').length).toBe(1);
    expect(events.at(-3)).toMatchObject({
      type: 'tool',
      name: 'answer',
      args: { question: 'visa fee' },
    });
    expect(events.at(-2)).toMatchObject({
      type: 'citations',
      citations: [{ title: 'Visa rules' }],
    });
    expect(events.at(-1)).toEqual({ type: 'done' });
    expect(ollama.requests.map((r) => (r.body as { stream: boolean }).stream)).toEqual([
      false,
      true,
    ]);
  });
});
