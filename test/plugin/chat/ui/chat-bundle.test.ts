// @vitest-environment node
/**
 * The chat in the built main.js, against the Obsidian shim: the pane's composer waits for
 * layout-ready, a question is answered from the vault's own index with a citation chip that
 * opens the note at the cited line, a reminder request writes a reminder note (with the real
 * clock's seconds) shown as a card, the conversation is saved in Cairn/Chats, and unloading
 * releases every listener and timer. (Undo runs through the same engine in chat-session.test.)
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildPluginBundle, settle } from '../../../helpers/plugin-bundle';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createObsidianEnvironment } from '../../../helpers/obsidian-shim';
import type { AppShimInstance, ObsidianEnvironment } from '../../../helpers/obsidian-shim';

const OUTFILE = resolve('test-output/chat-bundle/main.js');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as Record<string, unknown>;

let source = '';
let env: ObsidianEnvironment;
let app: AppShimInstance;

beforeAll(async () => {
  ({ source } = await buildPluginBundle('chat-bundle'));
}, 60_000);

afterEach(async () => {
  await env?.close();
});

function $(selector: string): HTMLElement | null {
  return env.window.document.querySelector(selector) as unknown as HTMLElement | null;
}

function $$(selector: string): HTMLElement[] {
  return [...env.window.document.querySelectorAll(selector)] as unknown as HTMLElement[];
}

describe('the chat in the built main.js', () => {
  it('answers from the vault with a chip to the line, writes a reminder note with its card, saves the chat', async () => {
    env = createObsidianEnvironment(async () => ({ status: 599, text: '' }));
    app = env.api.createApp();
    app.pluginData.set(
      String(manifest.id),
      JSON.stringify({ settingsVersion: 1, embeddings: { provider: 'none' }, timezone: 'UTC' }),
    );
    const vault = app.vault as unknown as {
      writeFile(path: string, content: string): unknown;
      getFiles(): Array<{ path: string }>;
      read(file: { path: string }): Promise<string>;
    };
    vault.writeFile(
      'Travel/Visa rules.md',
      '---\ntags: [travel]\n---\n# Visa rules\n\nIntro.\n\n## Fees\n\nThe visa fee is $50 for standard processing.\n',
    );
    vault.writeFile('Notes/garden.md', '# Garden\n\nWater the tomatoes every morning.\n');
    const exports = env.loadBundle(source, OUTFILE);
    const PluginClass = (exports.default ?? exports) as new (
      a: unknown,
      m: unknown,
    ) => { load(): unknown; unload(): void };
    const plugin = new PluginClass(app, manifest);
    await plugin.load();

    // Restored from the layout before layout-ready: the pane shows, the composer waits.
    await app.commands.get('cairn:open-chat-pane')?.callback?.();
    await settle(() => $('.cairn-composer-input') !== null);
    expect(($('.cairn-composer-input') as HTMLTextAreaElement).disabled).toBe(true);

    app.workspace.triggerLayoutReady();
    await settle(() => !($('.cairn-composer-input') as HTMLTextAreaElement).disabled);
    const input = () => $('.cairn-composer-input') as HTMLTextAreaElement;
    expect(input().disabled).toBe(false);

    const send = async (text: string) => {
      const before = $$('.cairn-chat-message-assistant').length;
      input().value = text;
      input().dispatchEvent(new env.window.Event('input', { bubbles: true }) as unknown as Event);
      input().dispatchEvent(
        new env.window.KeyboardEvent('keydown', {
          key: 'Enter',
          bubbles: true,
        }) as unknown as Event,
      );
      await settle(
        () =>
          $$('.cairn-chat-message-assistant').length > before &&
          $('.cairn-chat-message-assistant[data-streaming="true"]') === null,
      );
      return $$('.cairn-chat-message-assistant').at(-1);
    };

    // The index fills in slices after layout-ready: ask until it answers from the note.
    let answer: HTMLElement | undefined;
    for (let attempt = 0; attempt < 30; attempt++) {
      answer = await send('How much is the visa fee?');
      if (answer?.querySelector('.cairn-citation-chip')) break;
      await settle(() => false, 20);
    }
    expect(answer?.querySelector('.cairn-chat-markdown')?.textContent).toContain('$50');
    const chip = answer?.querySelector('.cairn-citation-chip') as HTMLElement;
    expect(chip.textContent).toContain('Visa rules › Fees');
    chip.click();
    await settle(() => app.workspace.opened.length > 0);
    // The chunk starts at its heading, line 8 (1-based); the editor's eState line is 0-based.
    expect(app.workspace.opened).toEqual([{ path: 'Travel/Visa rules.md', eState: { line: 7 } }]);

    const reply = await send('remind me tomorrow at 9 to renew the passport');
    const card = reply?.querySelector('.cairn-tool-card') as HTMLElement;
    expect(card.dataset.tool).toBe('create_reminder');
    const reminderPath = card.querySelector('.cairn-tool-card-path')?.textContent ?? '';
    expect(reminderPath).toMatch(/^Cairn\/Reminders\/.+\.md$/);
    expect(vault.getFiles().map((f) => f.path)).toContain(reminderPath);

    const chats = vault.getFiles().filter((f) => f.path.startsWith('Cairn/Chats/'));
    expect(chats).toHaveLength(1);
    const transcript = await vault.read(chats[0]!);
    expect(transcript).toContain('How much is the visa fee?');
    expect(transcript).toContain('renew the passport');

    plugin.unload();
    await settle(() => env.tracker.held().timeouts === 0 && $('.cairn-chat-pane') === null);
    expect($('.cairn-chat-pane')).toBeNull();
    expect(env.tracker.held()).toEqual({ intervals: 0, timeouts: 0, eventRefs: 0, listeners: [] });
  });
});
