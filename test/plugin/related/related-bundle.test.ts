// @vitest-environment node
/**
 * The related-notes view in the built main.js, against the Obsidian shim: it follows the active
 * note, ranks by words, links and tags (keyword only here, and says so), opens a result (a new
 * tab with Mod), hands hovers to Obsidian's page preview, drags a link, and unloading releases
 * everything.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPluginBundle, settle as settleBundle } from '../../helpers/plugin-bundle';
import { createObsidianEnvironment } from '../../helpers/obsidian-shim';
import type { AppShimInstance, ObsidianEnvironment } from '../../helpers/obsidian-shim';

const OUTFILE = resolve('test-output/related-bundle/main.js');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as Record<string, unknown>;

let source = '';
let env: ObsidianEnvironment;
let app: AppShimInstance;

beforeAll(async () => {
  ({ source } = await buildPluginBundle('related-bundle'));
}, 60_000);

afterEach(async () => {
  await env?.close();
});

/** The related view waits 120 ms after a switch before ranking: allow it longer. */
const settle = (until: () => boolean) => settleBundle(until, 800);

function $$(selector: string): HTMLElement[] {
  return [...env.window.document.querySelectorAll(selector)] as unknown as HTMLElement[];
}

describe('related notes in the built main.js', () => {
  it('follows the active note, opens, previews, drags a link, releases everything', async () => {
    env = createObsidianEnvironment(async () => ({ status: 599, text: '' }));
    app = env.api.createApp();
    app.pluginData.set(
      String(manifest.id),
      JSON.stringify({ settingsVersion: 1, embeddings: { provider: 'none' } }),
    );
    const vault = app.vault as unknown as {
      writeFile(path: string, content: string): unknown;
      getAbstractFileByPath(path: string): unknown;
    };
    for (let i = 0; i < 20; i++)
      vault.writeFile(`Notes/n${i}.md`, `# Note ${i}\n\nfiller text ${i}\n`);
    vault.writeFile(
      'Garden/Tomatoes.md',
      '---\ntags: [garden]\n---\n# Tomatoes\n\nFull sun and deep watering. See [[Seed catalogue]].\n\n## Pests\n\nAphids and hornworms; neem oil helps.\n',
    );
    vault.writeFile(
      'Garden/Pest control.md',
      '# Pest control\n\nAphids and hornworms: spray neem oil in the evening.\n',
    );
    vault.writeFile('Garden/Peppers.md', '---\ntags: [garden]\n---\n# Peppers\n\nSweet ones.\n');
    vault.writeFile('Shopping/Seed catalogue.md', '# Seed catalogue\n\nOrder in February.\n');
    const exports = env.loadBundle(source, OUTFILE);
    const PluginClass = (exports.default ?? exports) as new (
      a: unknown,
      m: unknown,
    ) => { load(): unknown; unload(): void };
    const plugin = new PluginClass(app, manifest);
    await plugin.load();
    expect(app.hoverLinkSources.get('cairn-related')).toEqual({
      display: 'Cairn related notes',
      defaultMod: true,
    });
    app.workspace.triggerLayoutReady();
    app.commands.get('cairn:open-related-notes')?.callback?.();
    await settle(() => $$('.cairn-related').length > 0);
    expect($$('.cairn-related-empty')[0]?.textContent).toBe(
      'Open a note to see the notes related to it.',
    );

    app.workspace.setActiveFile(vault.getAbstractFileByPath('Garden/Tomatoes.md') as never);
    await settle(() => $$('.cairn-related-item').length >= 3);
    const titles = $$('.cairn-related-title').map((e) => e.textContent);
    // The linked note also matches by words (its name is in the link); pests by content.
    expect(titles.slice(0, 2).sort()).toEqual(['Pest control', 'Seed catalogue']);
    expect(titles).toContain('Peppers');
    expect(titles).not.toContain('Tomatoes');
    expect($$('.cairn-related-for')[0]?.textContent).toBe('Tomatoes');
    expect($$('.cairn-related-status')[0]?.textContent).toBe(
      'By words and links only: keyword only (embeddings are off in settings)',
    );

    // With the sidebar collapsed a switch ranks nothing; expanding it ranks the note shown.
    const shownFor = () => $$('.cairn-related-for')[0]?.textContent;
    app.workspace.rightSplit.collapsed = true;
    app.workspace.setActiveFile(vault.getAbstractFileByPath('Garden/Peppers.md') as never);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(shownFor()).toBe('Tomatoes');
    app.workspace.rightSplit.collapsed = false;
    app.workspace.trigger('layout-change');
    await settle(() => shownFor() === 'Peppers');
    app.workspace.setActiveFile(vault.getAbstractFileByPath('Garden/Tomatoes.md') as never);
    await settle(() => shownFor() === 'Tomatoes');

    const hovers: unknown[] = [];
    const hoverRef = app.workspace.on('hover-link', (info: unknown) => void hovers.push(info));
    // Found by its title in the list shown now: the first two may rank in either order (see
    // above), and this list is the second ranking of Tomatoes, not the one `titles` read.
    const first = $$('.cairn-related-open').find(
      (open) => open.querySelector('.cairn-related-title')?.textContent === 'Pest control',
    )!;
    first.dispatchEvent(new env.window.MouseEvent('mouseenter') as unknown as Event);
    expect(hovers).toEqual([
      expect.objectContaining({
        source: 'cairn-related',
        linktext: 'Garden/Pest control.md',
        sourcePath: 'Garden/Tomatoes.md',
      }),
    ]);
    const dataTransfer = new Map<string, string>();
    const drag = new env.window.Event('dragstart', { bubbles: true }) as unknown as DragEvent;
    Object.defineProperty(drag, 'dataTransfer', {
      value: { setData: (type: string, value: string) => dataTransfer.set(type, value) },
    });
    first.dispatchEvent(drag);
    expect(dataTransfer.get('text/plain')).toBe('[[Pest control]]');

    first.dispatchEvent(
      new env.window.MouseEvent('click', { bubbles: true, ctrlKey: true }) as unknown as Event,
    );
    await settle(() => app.workspace.opened.length > 0);
    expect(app.workspace.opened).toEqual([
      { path: 'Garden/Pest control.md', eState: { line: 0 }, placement: 'tab' },
    ]);

    app.workspace.offref(hoverRef);
    plugin.unload();
    expect($$('.cairn-related')).toEqual([]);
    expect(app.hoverLinkSources.size).toBe(0);
    await settle(() => env.tracker.held().timeouts === 0);
    expect(env.tracker.held()).toEqual({ intervals: 0, timeouts: 0, eventRefs: 0, listeners: [] });
  });

  it('on a paired phone without its own index, ranks with the companion’s candidates', async () => {
    const asked: string[] = [];
    const visa = {
      type: 'note',
      path: 'Travel/Visa rules.md',
      title: 'Visa rules',
      lines: [3, 5],
      heading: 'Key points',
      excerpt: 'Schengen: 90 days in any 180.',
      score: 0.9,
    };
    env = createObsidianEnvironment(async (request) => {
      const url = new URL(request.url);
      if (url.pathname !== '/api/v1/related') return { status: 404, text: '' };
      asked.push(url.search);
      const body = { mode: 'hybrid', vector: [{ citation: visa, score: 0.9 }], keyword: [] };
      return { status: 200, text: JSON.stringify(body) };
    });
    const platform = env.api.module.Platform as { isMobile: boolean; isDesktop: boolean };
    platform.isMobile = true;
    platform.isDesktop = false;
    app = env.api.createApp();
    app.pluginData.set(
      String(manifest.id),
      JSON.stringify({
        settingsVersion: 1,
        companion: { url: 'http://192.168.1.20:8787', token: 't' },
      }),
    );
    const vault = app.vault as unknown as {
      writeFile(path: string, content: string): unknown;
      getAbstractFileByPath(path: string): unknown;
    };
    vault.writeFile('Travel/Lisbon trip.md', '# Lisbon trip\n\nFlights booked.\n');
    vault.writeFile('Travel/Visa rules.md', '# Visa rules\n\nSchengen: 90 days in any 180.\n');
    const exports = env.loadBundle(source, OUTFILE);
    const PluginClass = (exports.default ?? exports) as new (
      a: unknown,
      m: unknown,
    ) => { load(): unknown; unload(): void };
    const plugin = new PluginClass(app, manifest);
    await plugin.load();
    app.workspace.triggerLayoutReady();
    app.commands.get('cairn:open-related-notes')?.callback?.();
    app.workspace.setActiveFile(vault.getAbstractFileByPath('Travel/Lisbon trip.md') as never);
    await settle(() => $$('.cairn-related-item').length > 0);
    expect(asked).toEqual([
      `?${new URLSearchParams({ path: 'Travel/Lisbon trip.md', limit: '60' })}`,
    ]);
    expect($$('.cairn-related-title').map((e) => e.textContent)).toEqual(['Visa rules']);
    expect($$('.cairn-related-item')[0]?.textContent).toContain('Schengen');
    plugin.unload();
    platform.isMobile = false;
    platform.isDesktop = true;
  });
});
