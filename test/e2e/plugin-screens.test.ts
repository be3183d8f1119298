/**
 * The plugin's screens as users see them, in headless Chromium: the settings tab, the first-run
 * card, the search modal, related notes and the chat pane, drawn by the built main.js over the
 * test Obsidian shim (the same page set-up as sync-screens.test.ts), with IndexedDB real in the
 * browser. Desktop (1280x800) and phone (390x844, `Platform.isMobile`), light and dark. With
 * CAIRN_SCREENSHOTS=docs the pictures go to docs/images/plugin/ (docs/plugin.md shows them).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildPluginBundle } from '../helpers/plugin-bundle';

const availability = browserAvailability();
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as Record<string, unknown>;

/** `obsidian` (the shim) and the CodeMirror modules Obsidian provides, for main.js's require. */
const SETUP = `
import { installDomHelpers } from './test/helpers/obsidian-shim/dom-helpers';
import { createObsidianApi } from './test/helpers/obsidian-shim/obsidian-api';
import { ResourceTracker } from './test/helpers/obsidian-shim/resource-tracker';
import * as cmState from '@codemirror/state';
import * as cmView from '@codemirror/view';
installDomHelpers(window);
const api = createObsidianApi({
  document,
  tracker: new ResourceTracker(),
  fetch: async () => ({ status: 599, text: '' }),
});
window.__obsidianApi = api;
window.__modules = { obsidian: api.module, '@codemirror/state': cmState, '@codemirror/view': cmView };
`;

/** A small vault for search and related notes. */
const VAULT: Record<string, string> = {
  'Garden/Tomatoes.md':
    '---\ntags: [garden]\n---\n# Tomatoes\n\nFull sun and deep watering. See [[Seed catalogue]].\n\n## Pests\n\nAphids and hornworms; neem oil in the evening helps.\n',
  'Garden/Pest control.md':
    '# Pest control\n\nAphids and hornworms: spray neem oil in the evening, pick hornworms by hand.\n',
  'Garden/Peppers.md':
    '---\ntags: [garden]\n---\n# Peppers\n\nLike tomatoes, peppers want full sun and steady watering.\n',
  'Shopping/Seed catalogue.md': '# Seed catalogue\n\nSan Marzano and Sungold; order in February.\n',
  'Travel/Visa rules.md':
    '# Visa rules\n\n## Fees\n\nThe visa fee is €90; express processing costs more.\n',
};

const LIGHT = `
:root { --background-primary: #ffffff; --background-primary-alt: #fafafa; --background-secondary: #f6f6f6; --background-secondary-alt: #fafafa;
  --background-modifier-border: #e0e0e0; --background-modifier-hover: rgba(0,0,0,0.067); --background-modifier-form-field: #ffffff;
  --text-normal: #222222; --text-muted: #5c5c5c; --text-faint: #ababab; --text-accent: #8a5cf5;
  --text-error: #e93147; --text-warning: #ec7500; --text-success: #08b94e; --interactive-accent: #8a5cf5;
  --text-on-accent: #fff; --color-yellow-rgb: 224, 172, 0; --modal-background: #ffffff; --shadow: rgba(0,0,0,0.25);
  --text-highlight-bg: rgba(255, 208, 0, 0.4); }`;
const DARK = `
:root { --background-primary: #1e1e1e; --background-primary-alt: #242424; --background-secondary: #262626; --background-secondary-alt: #2a2a2a;
  --background-modifier-border: #3f3f3f; --background-modifier-hover: rgba(255,255,255,0.075); --background-modifier-form-field: #1e1e1e;
  --text-normal: #dadada; --text-muted: #a3a3a3; --text-faint: #666666; --text-accent: #a88bfa;
  --text-error: #fb464c; --text-warning: #e9973f; --text-success: #44cf6e; --interactive-accent: #8a5cf5;
  --text-on-accent: #fff; --color-yellow-rgb: 224, 222, 113; --modal-background: #1e1e1e; --shadow: rgba(0,0,0,0.6);
  --text-highlight-bg: rgba(255, 208, 0, 0.4); }`;
/** Obsidian's layout for the pieces the screens use: the right sidebar, modals, setting rows. */
const BASE = `
:root { --font-interface: -apple-system, 'Segoe UI', Roboto, 'Inter', sans-serif; --font-monospace: 'DejaVu Sans Mono', monospace;
  --font-text: var(--font-interface);
  --font-ui-smaller: 12px; --font-ui-small: 13px; --font-ui-medium: 15px; --font-ui-large: 18px; --font-semibold: 600;
  --size-2-1: 2px; --size-2-2: 4px; --size-2-3: 6px; --size-4-1: 4px; --size-4-2: 8px; --size-4-3: 12px; --size-4-4: 16px; --size-4-5: 20px; --size-4-6: 24px;
  --radius-s: 4px; --radius-m: 8px; --radius-l: 12px; --color-green: #08b94e; --color-orange: #ec7500; --color-red: #e93147; --color-blue: #086ddd; }
html, body { margin: 0; height: 100%; background: var(--background-primary); color: var(--text-normal);
  font-family: var(--font-interface); font-size: 14px; overflow: hidden; }
* { box-sizing: border-box; }
button { font: inherit; font-size: var(--font-ui-small); padding: 4px 12px; min-height: 30px; border-radius: 6px; border: 0;
  color: var(--text-normal); background: var(--background-secondary); box-shadow: 0 0 0 1px var(--background-modifier-border); cursor: pointer;
  white-space: nowrap; }
button.mod-cta { background: var(--interactive-accent); color: var(--text-on-accent); box-shadow: none; }
button.mod-warning { background: var(--color-red); color: #fff; box-shadow: none; }
button:disabled { opacity: 0.5; }
textarea, input, select { font: inherit; color: var(--text-normal); background: var(--background-modifier-form-field); padding: 6px 8px;
  border-radius: 6px; border: 1px solid var(--background-modifier-border); max-width: 100%; }
.setting-item { display: flex; align-items: center; gap: 12px; padding: 12px 0; border-top: 1px solid var(--background-modifier-border); }
.setting-item-heading .setting-item-name { font-size: 16px; font-weight: 600; }
.setting-item-info { flex: 1 1 auto; min-width: 0; }
.setting-item-name { font-weight: 500; }
.setting-item-name:empty, .setting-item-description:empty { display: none; }
.setting-item-description { color: var(--text-muted); font-size: var(--font-ui-smaller); padding-top: 4px; }
.setting-item-control { display: flex; gap: 8px; align-items: center; justify-content: flex-end; flex: 0 1 auto; flex-wrap: wrap; }
.modal-container { position: fixed; inset: 0; display: flex; align-items: flex-start; padding-top: 80px; justify-content: center; background: var(--shadow); }
.modal { position: relative; background: var(--modal-background); border: 1px solid var(--background-modifier-border);
  border-radius: 12px; padding: 16px 20px; width: 700px; max-width: calc(100vw - 16px); max-height: 80vh; overflow-y: auto; }
.modal-title { font-size: 20px; font-weight: 600; margin-bottom: 8px; }
body.is-phone .modal-container { padding-top: 0; }
body.is-phone .modal { width: 100vw; max-width: 100vw; height: 100vh; max-height: 100vh; border-radius: 0; }
.app-container { position: fixed; inset: 0; }
.side-dock-ribbon, .status-bar { display: none; }
.mod-right-split { position: absolute; top: 0; right: 0; bottom: 0; width: 380px; overflow-y: auto;
  background: var(--background-secondary); border-left: 1px solid var(--background-modifier-border); }
body.is-phone .mod-right-split { width: 100%; border-left: 0; }
.workspace-leaf { height: 100%; }
.workspace-leaf-content { height: 100%; overflow-y: auto; padding: 8px 12px; }
.cairn-shot-settings { position: fixed; inset: 40px 120px; overflow-y: auto; padding: 16px 32px;
  background: var(--background-primary); border: 1px solid var(--background-modifier-border); border-radius: 12px; z-index: 5; }
body.is-phone .cairn-shot-settings { inset: 0; padding: 12px 16px; border: 0; border-radius: 0; }
.notice { display: none; }
`;

/** What the page's script leaves on `window` (the shim's app, as the plugin saw it). */
interface PageWindow {
  cairn: {
    app: {
      settingTabs: Array<{ containerEl: HTMLElement; display(): void }>;
      commands: Map<string, { callback(): void }>;
      workspace: { setActiveFile(file: unknown): void };
      vault: { getAbstractFileByPath(path: string): unknown };
    };
  };
}

type Scene = 'settings' | 'first-run' | 'search' | 'related' | 'chat';
const SCENES: Scene[] = ['settings', 'first-run', 'search', 'related', 'chat'];

describe.skipIf(!availability.available)('the plugin’s screens in Chromium', () => {
  let browser: LaunchedBrowser;
  let htmlFor: (dark: boolean, phone: boolean) => string = () => '';
  const keep = process.env.CAIRN_SCREENSHOTS === 'docs';
  const shots = keep
    ? resolve('docs/images/plugin')
    : mkdtempSync(join(tmpdir(), 'cairn-plugin-shots-'));

  beforeAll(async () => {
    const { source } = await buildPluginBundle('plugin-screens');
    const { build } = await import('esbuild');
    const setup = await build({
      stdin: { contents: SETUP, resolveDir: resolve('.'), loader: 'ts', sourcefile: 'setup.ts' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    const css = readdirSync('styles')
      .filter((file) => file.endsWith('.css'))
      .sort()
      .map((file) => readFileSync(join('styles', file), 'utf8'))
      .join('\n');
    const loader = `
      window.__loadCairn = () => {
        const module = { exports: {} };
        new Function('module', 'exports', 'require', ${JSON.stringify(source)})(
          module, module.exports, (name) => {
            const found = window.__modules[name];
            if (!found) throw new Error('main.js required ' + name);
            return found;
          });
        return module.exports.default ?? module.exports;
      };`;
    const script = `${setup.outputFiles[0]?.text ?? ''}\n${loader}`;
    htmlFor = (dark, phone) =>
      `<!doctype html><html><head><meta charset="utf-8"><style>${BASE}\n${dark ? DARK : LIGHT}\n${css}</style></head>
<body class="${dark ? 'theme-dark' : 'theme-light'}${phone ? ' is-phone is-mobile' : ''}">
<script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;
    browser = await launchChromium();
    if (keep) mkdirSync(shots, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (!keep) rmSync(shots, { recursive: true, force: true });
  });

  /** A page with the plugin loaded as Obsidian would, on a desktop or a phone. */
  async function open(
    phone: boolean,
    dark: boolean,
    data: unknown,
  ): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1280, height: 800 });
    const html = htmlFor(dark, phone);
    await page.route('http://localhost/plugin', (route) =>
      route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' }),
    );
    await page.goto('http://localhost/plugin');
    await page.evaluate(
      async ([manifestJson, dataJson, files, isPhone]) => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shim's objects in the page
        const w = window as unknown as Record<string, any>;
        const api = w.__obsidianApi;
        api.module.Platform.isMobile = isPhone;
        api.module.Platform.isDesktop = !isPhone;
        api.module.Platform.isPhone = isPhone;
        const app = api.createApp();
        const manifest = JSON.parse(manifestJson as string);
        app.pluginData.set(manifest.id, dataJson);
        for (const [path, text] of Object.entries(files as Record<string, string>))
          app.vault.writeFile(path, text);
        const Plugin = w.__loadCairn();
        const plugin = new Plugin(app, manifest);
        await plugin.load();
        app.workspace.triggerLayoutReady();
        w.cairn = { app, plugin };
      },
      [JSON.stringify(manifest), JSON.stringify(data), VAULT, phone] as const,
    );
    return { page, errors };
  }

  async function show(page: Page, scene: Scene): Promise<void> {
    if (scene === 'settings') {
      await page.evaluate(() => {
        const { app } = (window as unknown as PageWindow).cairn;
        const tab = app.settingTabs[0]!;
        const host = document.body.createDiv({ cls: 'cairn-shot-settings' });
        host.append(tab.containerEl);
        tab.display();
      });
      await page.waitForSelector('.cairn-shot-settings .setting-item');
      return;
    }
    if (scene === 'search' || scene === 'first-run') {
      await page.evaluate(() =>
        (window as unknown as PageWindow).cairn.app.commands.get('cairn:search-vault')!.callback(),
      );
      await page.waitForSelector('.modal input');
      // The index loads in slices after layout-ready: the pictures show it loaded.
      await page.waitForFunction(
        () => !document.querySelector('.cairn-search-index')?.textContent?.startsWith('Loading'),
        undefined,
        { timeout: 15_000 },
      );
      if (scene === 'first-run')
        await page.waitForSelector('.cairn-first-run', { timeout: 15_000 });
      if (scene === 'search') {
        await page.fill('.modal input', 'neem oil');
        await page.waitForSelector('.cairn-search-result', {
          timeout: 15_000,
        });
      }
      return;
    }
    const command = scene === 'related' ? 'cairn:open-related-notes' : 'cairn:open-chat-pane';
    await page.evaluate((id) => {
      const { app } = (window as unknown as PageWindow).cairn;
      app.commands.get(id)!.callback();
      app.workspace.setActiveFile(app.vault.getAbstractFileByPath('Garden/Tomatoes.md'));
    }, command);
    if (scene === 'related') await page.waitForSelector('.cairn-related-item', { timeout: 15_000 });
    else await page.waitForSelector('.cairn-chat-pane');
  }

  for (const scene of SCENES) {
    it(`draws ${scene} at desktop and phone size, light and dark`, async () => {
      // The first-run card asks for the built-in model (the default provider, not installed);
      // the other scenes use keyword search, which needs no download.
      const data =
        scene === 'first-run'
          ? { settingsVersion: 1 }
          : { settingsVersion: 1, embeddings: { provider: 'none' } };
      for (const phone of [false, true]) {
        for (const dark of [false, true]) {
          const { page, errors } = await open(phone, dark, data);
          await show(page, scene);
          await page.waitForTimeout(150);
          expect(errors).toEqual([]);
          // Nothing wider than the screen (a phone would scroll sideways).
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          expect(overflow).toBeLessThanOrEqual(0);
          const name = `plugin-${scene}-${phone ? 'phone' : 'desktop'}-${dark ? 'dark' : 'light'}`;
          await page.screenshot({ path: join(shots, `${name}.png`) });
          await page.close();
        }
      }
    }, 120_000);
  }
});
