// @vitest-environment node
/**
 * The search feature in the built main.js, against the Obsidian shim: nothing happens before
 * layout-ready, the vault is indexed in slices with a status-bar count, "Search vault" opens
 * the modal, Enter opens the note at the cited line, vault edits are picked up, and unloading
 * releases every listener and timer.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildPluginBundle, settle } from '../../helpers/plugin-bundle';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createObsidianEnvironment } from '../../helpers/obsidian-shim';
import type { AppShimInstance, ObsidianEnvironment } from '../../helpers/obsidian-shim';

const OUTFILE = resolve('test-output/search-bundle/main.js');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as Record<string, unknown>;
/** SearchPanel's default `debounceMs`. */
const TYPING_DEBOUNCE_MS = 120;

let source = '';
let env: ObsidianEnvironment;
let app: AppShimInstance;

beforeAll(async () => {
  ({ source } = await buildPluginBundle('search-bundle'));
}, 60_000);

afterEach(async () => {
  await env?.close();
});

/** Lets promise chains, idle callbacks and zero timeouts run. */
function $(selector: string): HTMLElement | null {
  return env.window.document.querySelector(selector) as unknown as HTMLElement | null;
}

describe('search in the built main.js', () => {
  it('indexes after layout-ready, searches from the modal, opens at the line, releases everything', async () => {
    env = createObsidianEnvironment(async () => ({ status: 599, text: '' }));
    app = env.api.createApp();
    app.pluginData.set(
      String(manifest.id),
      JSON.stringify({ settingsVersion: 1, embeddings: { provider: 'none' } }),
    );
    const vault = app.vault as unknown as {
      writeFile(path: string, content: string): unknown;
      trigger(name: string, ...args: unknown[]): void;
    };
    for (let i = 0; i < 40; i++)
      vault.writeFile(`Notes/n${i}.md`, `# Note ${i}\n\nfiller text ${i}\n`);
    vault.writeFile(
      'Travel/Visa rules.md',
      '---\ntags: [travel]\n---\n# Visa rules\n\nIntro.\n\n## Fees\n\nThe fee is $50 for standard processing.\n',
    );
    const exports = env.loadBundle(source, OUTFILE);
    const PluginClass = (exports.default ?? exports) as new (
      a: unknown,
      m: unknown,
    ) => {
      load(): unknown;
      unload(): void;
    };
    const plugin = new PluginClass(app, manifest);
    await plugin.load();
    expect([...app.commands.keys()]).not.toContain('cairn:search-vault');
    expect($('.cairn-index-status')).toBeNull();

    app.workspace.triggerLayoutReady();
    await settle(
      () => app.commands.has('cairn:search-vault') && $('.cairn-index-status')?.textContent === '',
    );
    expect(app.commands.has('cairn:search-vault')).toBe(true);

    app.commands.get('cairn:search-vault')?.callback?.();
    const input = $('.cairn-search-input') as HTMLInputElement;
    expect(input).not.toBeNull();
    expect($('.cairn-search-mode')?.textContent).toBe(
      'keyword only (embeddings are off in settings)',
    );
    // Typed again until the first indexing pass (in slices, after layout-ready) has finished.
    // Each try waits out the panel's 120 ms typing debounce (SearchPanel.svelte) before typing
    // again: typing sooner cancels the search the debounce holds. Polling 50 × 2 ms took ~105 ms
    // on an idle machine, so every search was cancelled and the loop ran to its end (~40 s; what
    // looked like a slow first indexing pass). The loop ends as soon as a result shows.
    for (let attempt = 0; attempt < 60 && $('.cairn-search-result') === null; attempt++) {
      input.value = attempt % 2 === 0 ? 'how much is the visa fee' : 'how much is the visa fee?';
      input.dispatchEvent(new env.window.Event('input', { bubbles: true }) as unknown as Event);
      const next = Date.now() + 3 * TYPING_DEBOUNCE_MS;
      await settle(() => $('.cairn-search-result') !== null || Date.now() >= next, 1_000);
    }
    expect($('.cairn-search-result-path')?.textContent).toMatch(
      /^Travel\/Visa rules\.md · .*line 8$/,
    );
    input.dispatchEvent(
      new env.window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true }) as unknown as Event,
    );
    await settle(() => app.workspace.opened.length > 0);
    expect(app.workspace.opened).toEqual([{ path: 'Travel/Visa rules.md', eState: { line: 7 } }]);
    expect($('.cairn-search')).toBeNull();
    // The matched word of the cited lines is selected and scrolled to ("Fees" for "fee").
    const editor = (
      app.workspace.getLeaf(false).view as unknown as {
        editor: { selection: unknown; scrolledTo: unknown };
      }
    ).editor;
    const fees = { from: { line: 7, ch: 3 }, to: { line: 7, ch: 7 } };
    await settle(() => editor.selection !== null);
    expect(editor.selection).toEqual(fees);
    expect(editor.scrolledTo).toEqual(fees);

    // Mod+Enter opens the hit in a new tab, Shift+Enter in a split.
    for (const [modifier, placement] of [
      ['ctrlKey', 'tab'],
      ['shiftKey', 'split'],
    ] as const) {
      app.commands.get('cairn:search-vault')?.callback?.();
      const box = $('.cairn-search-input') as HTMLInputElement;
      box.value = 'visa fee';
      box.dispatchEvent(new env.window.Event('input', { bubbles: true }) as unknown as Event);
      await settle(() => $('.cairn-search-result') !== null);
      box.dispatchEvent(
        new env.window.KeyboardEvent('keydown', {
          key: 'Enter',
          bubbles: true,
          [modifier]: true,
        }) as unknown as Event,
      );
      await settle(() => app.workspace.opened.at(-1)?.placement === placement);
      expect(app.workspace.opened.at(-1)).toEqual({
        path: 'Travel/Visa rules.md',
        eState: { line: 7 },
        placement,
      });
    }

    // An edit arrives through the vault's modify event and is searchable after the debounce.
    vault.writeFile('Notes/n3.md', '# Note 3\n\nnow about rhubarb crumble\n');
    app.commands.get('cairn:search-vault')?.callback?.();
    const again = $('.cairn-search-input') as HTMLInputElement;
    await new Promise((done) => setTimeout(done, 700));
    again.value = 'rhubarb';
    again.dispatchEvent(new env.window.Event('input', { bubbles: true }) as unknown as Event);
    await settle(() => $('.cairn-search-result') !== null);
    expect($('.cairn-search-result-path')?.textContent).toContain('Notes/n3.md');

    plugin.unload();
    expect($('.modal-container')).toBeNull();
    await settle(() => env.tracker.held().timeouts === 0);
    expect(env.tracker.held()).toEqual({ intervals: 0, timeouts: 0, eventRefs: 0, listeners: [] });
    expect(app.commands.size).toBe(0);
  });
});
