import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_VISION_MODEL, imageBase64, type ChatImage } from '../../../plugin/chat/chat-images';
import { transportOllamaHttp } from '../../../plugin/chat/ollama-transports';
import { VaultConversations } from '../../../plugin/chat/vault-conversations';
import { VisionChat, type VisionModel } from '../../../plugin/chat/vision-chat';
import { parseConversation } from '../../../shared/chat/conversation-file';
import { ExtractiveAnswerer } from '../../../shared/chat/extractive-answerer';
import type { Searcher } from '../../../shared/chat/ports';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { ManualClock } from '../../fakes/clock';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { NodeHttpTransport } from '../../helpers/node-http-transport';
import { countingBytes, MemoryVaultFiles } from './memory-vault-files';

/** The first bytes of a PNG: enough for the base64 hop, the fake does not decode images. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const photo: ChatImage = { name: 'pasted-1.png', blob: new Blob([PNG], { type: 'image/png' }) };

const searcher: Searcher = {
  search: ({ query }) =>
    Promise.resolve(
      /receipt|fee/i.test(query)
        ? [
            {
              score: 0.9,
              citation: {
                type: 'note' as const,
                path: 'Travel/Visa rules.md',
                title: 'Visa rules',
                lines: [3, 4] as [number, number],
                excerpt: 'The visa fee is $50.',
                score: 0.9,
              },
            },
          ]
        : [],
    ),
};

let ollama: FakeOllamaServer;
let files: MemoryVaultFiles;

beforeEach(async () => {
  ollama = await FakeOllamaServer.start({ models: ['llava'] });
  files = new MemoryVaultFiles();
});
afterEach(async () => {
  await ollama.close();
});

function vision(model: () => VisionModel | { refused: string }, search = searcher): VisionChat {
  return new VisionChat({
    http: transportOllamaHttp(new NodeHttpTransport()),
    model,
    answerer: new ExtractiveAnswerer(search),
    conversations: new VaultConversations({
      files,
      folder: () => 'Cairn/Chats',
      zone: () => 'Europe/Berlin',
      randomBytes: countingBytes(),
    }),
    clock: ManualClock.at('2026-11-22T09:30:00Z'),
  });
}

async function drain(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const all: ChatEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('VisionChat against a local Ollama', () => {
  it('sends the images as base64 with the vault passages, cites them, and saves the turn', async () => {
    ollama.chatReply = { content: 'The receipt shows $50, the visa fee [1].' };
    const chat = vision(() => ({ baseUrl: ollama.url, model: 'llava' }));
    const events = await drain(chat.send('Is this receipt the visa fee?', [photo]));

    const request = ollama.requests.find((r) => r.path === '/api/chat');
    const body = request?.body as {
      model: string;
      messages: Array<{ role: string; content: string; images?: string[] }>;
    };
    expect(body.model).toBe('llava');
    const user = body.messages.find((m) => m.role === 'user');
    expect(user?.images).toEqual([await imageBase64(photo.blob)]);
    expect(user?.images?.[0]).toBe(Buffer.from(PNG).toString('base64'));
    expect(user?.content).toContain('[1] Visa rules (Travel/Visa rules.md)\nThe visa fee is $50.');
    expect(user?.content).toContain('Question: Is this receipt the visa fee?');

    const text = events.flatMap((e) => (e.type === 'token' ? [e.text] : [])).join('');
    expect(text).toBe('The receipt shows $50, the visa fee [1].');
    expect(events.find((e) => e.type === 'citations')).toMatchObject({
      citations: [{ path: 'Travel/Visa rules.md' }],
    });
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    const path = done?.type === 'done' ? done.conversation : undefined;
    const saved = await files.read(path ?? '');
    expect(saved).toContain('Is this receipt the visa fee?\n\n(image: pasted-1.png)');
    expect(saved).not.toContain(Buffer.from(PNG).toString('base64'));
    const parsed = parseConversation(saved ?? '');
    expect(parsed.ok && parsed.conversation.messages[0]?.text).toBe(
      'Is this receipt the visa fee?\n\n(image: pasted-1.png)',
    );
  });

  it('asks about the image alone when there is no text, and cites nothing uncited', async () => {
    ollama.chatReply = { content: 'A cat on a sofa.' };
    const chat = vision(() => ({ baseUrl: ollama.url, model: 'llava' }));
    const events = await drain(chat.send('', [photo]));
    const body = ollama.requests[0]?.body as { messages: Array<{ content: string }> };
    expect(body.messages[1]?.content).toBe('Describe this image.');
    expect(events.some((e) => e.type === 'citations')).toBe(false);
    expect(events.at(-1)?.type).toBe('done');
  });

  it('answers from the image when the search is not running yet', async () => {
    const failing: Searcher = { search: () => Promise.reject(new Error('index starting')) };
    const chat = vision(() => ({ baseUrl: ollama.url, model: 'llava' }), failing);
    const events = await drain(chat.send('What is the fee on this receipt?', [photo]));
    const text = events.flatMap((e) => (e.type === 'token' ? [e.text] : [])).join('');
    expect(text).toBe('Hello from the fake Ollama.');
    expect(events.at(-1)?.type).toBe('done');
  });

  it('says what went wrong when Ollama refuses the model, and sends nothing when none is set', async () => {
    const missing = vision(() => ({ baseUrl: ollama.url, model: 'bakllava' }));
    const events = await drain(missing.send('What is this?', [photo]));
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'UNAVAILABLE', message: expect.stringContaining('bakllava') as unknown },
    });

    const before = ollama.requests.length;
    const none = vision(() => ({ refused: NO_VISION_MODEL }));
    expect(none.refusal()).toBe(NO_VISION_MODEL);
    expect(await drain(none.send('What is this?', [photo]))).toEqual([
      { type: 'error', error: { code: 'UNPROCESSABLE', message: NO_VISION_MODEL } },
    ]);
    expect(ollama.requests.length).toBe(before);
  });
});
