import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatSession, type ChatPaneServices } from '../../../../plugin/chat/chat-session';
import { transportOllamaHttp } from '../../../../plugin/chat/ollama-transports';
import { VisionChat, type VisionModel } from '../../../../plugin/chat/vision-chat';
import type { ReadableConnection } from '../../../../plugin/connection/connection-monitor';
import ChatPane from '../../../../plugin/chat/ui/ChatPane.svelte';
import { NO_VISION_MODEL } from '../../../../plugin/chat/chat-images';
import { FakeOllamaServer } from '../../../fakes/ollama-server';
import { NodeHttpTransport } from '../../../helpers/node-http-transport';
import { ScriptedBackend, scriptedServices } from './scripted-chat';

const connection: ReadableConnection = {
  subscribe: (listener) => {
    listener({ kind: 'not-configured' });
    return () => {};
  },
};

const PNG_BYTES = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const png = (name: string) => new File([new Uint8Array(PNG_BYTES)], name, { type: 'image/png' });

let ollama: FakeOllamaServer;
let created: string[];
let revoked: string[];

beforeEach(async () => {
  ollama = await FakeOllamaServer.start({ models: ['llava'] });
  created = [];
  revoked = [];
  const create = URL.createObjectURL.bind(URL);
  const revoke = URL.revokeObjectURL.bind(URL);
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    const url = create(blob);
    created.push(url);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation((url) => {
    revoked.push(url);
    revoke(url);
  });
});

afterEach(async () => {
  cleanup();
  vi.restoreAllMocks();
  await ollama.close();
});

/** The pane over a scripted engine and a real VisionChat talking to the fake Ollama. */
function setUp(model: () => VisionModel | { refused: string }) {
  const backend = new ScriptedBackend();
  const base = scriptedServices(backend);
  const vision = new VisionChat({
    http: transportOllamaHttp(new NodeHttpTransport()),
    model,
    clock: { now: () => Date.parse('2026-11-22T09:30:00Z') },
  });
  const session = new ChatSession(backend, undefined, undefined, vision);
  const services: ChatPaneServices = { ...base.services, session };
  const view = render(ChatPane, {
    props: {
      connection,
      chat: {
        subscribe: (listener: (value: ChatPaneServices | null) => void) => (
          listener(services),
          () => {}
        ),
      },
      onRetry: vi.fn(),
      onOpenSettings: vi.fn(),
    },
  });
  const input = () => screen.getByLabelText<HTMLTextAreaElement>('Message');
  const chips = () =>
    [...view.container.querySelectorAll('.cairn-composer-image')].map((chip) =>
      chip.textContent?.replace('×', '').trim(),
    );
  const problems = () =>
    [...view.container.querySelectorAll('.cairn-composer-problem')].map((p) => p.textContent);
  return { backend, view, input, chips, problems };
}

const settle = async (until?: () => boolean) => {
  for (let i = 0; i < 200 && !(until?.() ?? i >= 5); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    flushSync();
  }
};

const paste = (target: HTMLElement, files: File[]) =>
  fireEvent.paste(target, { clipboardData: { files, types: ['Files'] } });
const drop = (target: HTMLElement, files: File[]) =>
  fireEvent.drop(target, { dataTransfer: { files, types: ['Files'] } });

const llava = () => ({ baseUrl: ollama.url, model: 'llava' });

describe('Images in the chat composer', () => {
  it('a pasted image and a dropped one become chips with thumbnails and labels', async () => {
    const { view, input, chips } = setUp(llava);
    await paste(input(), [png('image.png')]);
    await drop(view.container.querySelector('.cairn-composer')!, [png('receipt.png')]);
    expect(chips()).toEqual(['pasted-1.png', 'receipt.png']);
    const thumbnails = [
      ...view.container.querySelectorAll<HTMLImageElement>('.cairn-composer-image img'),
    ];
    expect(thumbnails.map((img) => img.alt)).toEqual(['pasted-1.png', 'receipt.png']);
    expect(thumbnails.map((img) => img.getAttribute('src'))).toEqual(created);
    expect(screen.getByRole('button', { name: 'Remove image receipt.png' })).toBeTruthy();
    expect(screen.getByRole('list', { name: 'Attached images' })).toBeTruthy();
  });

  it('refuses a non-image, a too-large image and a fifth image, naming the file and the limit', async () => {
    const { input, chips, problems } = setUp(llava);
    const notes = new File(['hello'], 'notes.txt', { type: 'text/plain' });
    const huge = new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'huge.png', {
      type: 'image/png',
    });
    await paste(input(), [notes, huge]);
    expect(chips()).toEqual([]);
    expect(problems()).toEqual([
      'notes.txt is not a PNG, JPEG, WebP or GIF image.',
      'huge.png is 10.0 MB; images can be at most 10 MB.',
    ]);
    expect(screen.getByRole('alert').textContent).toContain('huge.png');
    await paste(input(), [png('a.png'), png('b.png'), png('c.png'), png('d.png'), png('e.png')]);
    expect(chips()).toEqual(['a.png', 'b.png', 'c.png', 'd.png']);
    expect(problems()).toEqual(['e.png was not added: at most 4 images per message.']);
  });

  it('removing a chip drops the image and releases its thumbnail', async () => {
    const { input, chips } = setUp(llava);
    await paste(input(), [png('a.png'), png('b.png')]);
    await fireEvent.click(screen.getByRole('button', { name: 'Remove image a.png' }));
    expect(chips()).toEqual(['b.png']);
    expect(revoked).toEqual([created[0]]);
  });

  it('sends text and images to the vision model; the answer and the thumbnails show', async () => {
    ollama.chatReply = { content: 'A receipt for $50.' };
    const { backend, view, input, chips } = setUp(llava);
    await fireEvent.input(input(), { target: { value: 'What is this?' } });
    await paste(input(), [png('receipt.png')]);
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await settle(() => view.container.querySelector('.rendered-markdown') !== null);

    const body = ollama.requests.find((r) => r.path === '/api/chat')?.body as {
      model: string;
      messages: Array<{ role: string; content: string; images?: string[] }>;
    };
    expect(body.model).toBe('llava');
    expect(body.messages[1]).toMatchObject({
      role: 'user',
      content: 'What is this?',
      images: [Buffer.from(PNG_BYTES).toString('base64')],
    });
    expect(backend.sent).toEqual([]);
    expect(view.container.querySelector('.rendered-markdown')?.textContent).toBe(
      'A receipt for $50.',
    );
    const sent = view.container.querySelector<HTMLImageElement>(
      '.cairn-chat-message-user .cairn-chat-images img',
    );
    expect(sent?.alt).toBe('receipt.png');
    expect(sent?.getAttribute('src')).toMatch(/^blob:/);
    // The composer is empty again and its own thumbnail was released.
    expect(chips()).toEqual([]);
    expect(input().value).toBe('');
    expect(revoked).toContain(created[0]);
  });

  it('without a vision model: says what to set, sends nothing and keeps the message', async () => {
    const { backend, input, chips, problems } = setUp(() => ({ refused: NO_VISION_MODEL }));
    await fireEvent.input(input(), { target: { value: 'What is this?' } });
    await paste(input(), [png('receipt.png')]);
    await fireEvent.keyDown(input(), { key: 'Enter' });
    await settle();
    expect(problems()).toEqual([
      'Images need a vision model: set Ollama vision model in Cairn settings.',
    ]);
    expect(ollama.requests).toEqual([]);
    expect(backend.sent).toEqual([]);
    expect(screen.queryByRole('log')).toBeNull();
    expect(input().value).toBe('What is this?');
    expect(chips()).toEqual(['receipt.png']);
  });

  it('releases every thumbnail, in the composer and the transcript, when the pane closes', async () => {
    const { view, input } = setUp(llava);
    await paste(input(), [png('sent.png')]);
    await fireEvent.keyDown(input(), { key: 'Enter' });
    await settle(() => view.container.querySelector('.rendered-markdown') !== null);
    await paste(input(), [png('kept.png')]);
    expect(created).toHaveLength(3);
    expect(revoked).toEqual([created[0]]);
    view.unmount();
    expect([...revoked].sort()).toEqual([...created].sort());
  });
});
