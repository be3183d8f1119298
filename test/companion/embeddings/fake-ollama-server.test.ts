import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOllamaServer } from '../../fakes/ollama-server';

/* The fake stands in for Ollama in the chat engine's tests too: its chat side must behave. */

let ollama: FakeOllamaServer;
beforeAll(async () => {
  ollama = await FakeOllamaServer.start();
});
afterAll(() => ollama.close());

const chat = (body: object) =>
  fetch(`${ollama.url}/api/chat`, { method: 'POST', body: JSON.stringify(body) });

describe('FakeOllamaServer', () => {
  it('lists its models', async () => {
    const tags = (await (await fetch(`${ollama.url}/api/tags`)).json()) as {
      models: { name: string }[];
    };
    expect(tags.models.map((m) => m.name)).toEqual(['nomic-embed-text:latest', 'llama3.2:latest']);
  });

  it('answers a non-streaming chat with the canned reply and tool calls', async () => {
    ollama.chatReply = {
      content: '',
      toolCalls: [{ function: { name: 'create_reminder', arguments: { title: 'Call the bank' } } }],
    };
    const response = await chat({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
    const body = (await response.json()) as { done: boolean; message: { tool_calls: unknown[] } };
    expect(body.done).toBe(true);
    expect(body.message.tool_calls).toEqual(ollama.chatReply.toolCalls);
  });

  it('streams NDJSON pieces that add up to the reply, ending with done', async () => {
    ollama.chatReply = { content: 'The fee is fifty dollars.' };
    const text = await (await chat({ model: 'llama3.2', messages: [] })).text();
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { done: boolean; message: { content: string } });
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.map((l) => l.message.content).join('')).toBe('The fee is fifty dollars.');
    expect(lines.at(-1)?.done).toBe(true);
    expect(lines.slice(0, -1).every((l) => !l.done)).toBe(true);
  });

  it('answers 404 for an unknown model, as Ollama does', async () => {
    const response = await chat({ model: 'mistral', messages: [] });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'model "mistral" not found, try pulling it first',
    });
  });

  it('gives the same text the same unit vector, and different texts different ones', () => {
    const a = FakeOllamaServer.vectorFor('alpha', 40);
    expect(FakeOllamaServer.vectorFor('alpha', 40)).toEqual(a);
    expect(FakeOllamaServer.vectorFor('beta', 40)).not.toEqual(a);
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
  });
});
