// @vitest-environment node
/**
 * The New note modal in the built main.js: Enter in a one-line field creates the note, Enter
 * in the body does not (it is a new line there), Mod+Enter creates from anywhere.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPluginBundle, settle } from '../../../helpers/plugin-bundle';
import { createObsidianEnvironment } from '../../../helpers/obsidian-shim';
import type { AppShimInstance, ObsidianEnvironment } from '../../../helpers/obsidian-shim';

const OUTFILE = resolve('test-output/note-modal-bundle/main.js');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as Record<string, unknown>;

let source = '';
let env: ObsidianEnvironment;
let app: AppShimInstance;

beforeAll(async () => {
  ({ source } = await buildPluginBundle('note-modal-bundle'));
}, 60_000);

afterEach(async () => {
  await env?.close();
});

describe('the New note modal in the built main.js', () => {
  it('Enter creates from a field, not from the body; Mod+Enter creates from the body', async () => {
    env = createObsidianEnvironment(async () => ({ status: 599, text: '' }));
    app = env.api.createApp();
    app.pluginData.set(
      String(manifest.id),
      JSON.stringify({ settingsVersion: 1, embeddings: { provider: 'none' } }),
    );
    const exports = env.loadBundle(source, OUTFILE);
    const PluginClass = (exports.default ?? exports) as new (
      a: unknown,
      m: unknown,
    ) => { load(): unknown; unload(): void };
    const plugin = new PluginClass(app, manifest);
    await plugin.load();
    app.workspace.triggerLayoutReady();
    // Let the search index finish its first pass, so nothing is mid-flight at unload.
    await settle(
      () =>
        app.commands.has('cairn:new-note') &&
        env.window.document.querySelector('.cairn-index-status')?.textContent === '',
    );

    const openModal = () => {
      app.commands.get('cairn:new-note')?.callback?.();
      const modal = env.window.document.querySelector(
        '.cairn-note-modal',
      ) as unknown as HTMLElement;
      const [title] = [...modal.querySelectorAll('input')] as unknown as HTMLInputElement[];
      const body = modal.querySelector('textarea') as unknown as HTMLTextAreaElement;
      return { modal, title: title!, body };
    };
    const type = (input: HTMLInputElement | HTMLTextAreaElement, value: string) => {
      input.value = value;
      input.dispatchEvent(new env.window.Event('input') as unknown as Event);
    };

    const first = openModal();
    type(first.title, 'Visa rules summary');
    type(first.body, 'Fee is $50.');
    expect(env.api.pressInOpenModal('Enter', [], first.body)).toBe(true);
    await new Promise((done) => setTimeout(done, 20));
    expect(app.vault.getMarkdownFiles()).toEqual([]);
    expect(env.api.pressInOpenModal('Enter', ['Mod'], first.body)).toBe(true);
    await settle(() => app.vault.getMarkdownFiles().length === 1);
    expect(app.vault.getMarkdownFiles().map((f) => f.path)).toEqual([
      'Cairn/Notes/visa-rules-summary.md',
    ]);
    expect(env.window.document.querySelector('.cairn-note-modal')).toBeNull();

    const second = openModal();
    type(second.title, 'Packing list');
    expect(env.api.pressInOpenModal('Enter', [], second.title)).toBe(true);
    await settle(() => app.vault.getMarkdownFiles().length === 2);
    expect(app.vault.getMarkdownFiles().map((f) => f.path)).toContain(
      'Cairn/Notes/packing-list.md',
    );
    plugin.unload();
  });
});
