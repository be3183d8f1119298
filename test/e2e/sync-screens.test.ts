/**
 * Cairn Sync's screens as users see them, in headless Chromium: the sync view (synced, and
 * waiting for a held mass delete), pairing (the link, a plain-http address, the first-sync
 * plan), the conflicts view with its side-by-side diff, a note's history and deleted files.
 * The plugin's own screen modules are bundled for the page over the test Obsidian shim; their
 * data comes from the real companion (buildApp + SyncService) and real device engines, which
 * made the history, the deleted file and the conflict copy. Screenshots at desktop (1280x800)
 * and phone (390x844) size, light and dark, go to docs/images/sync/ when CAIRN_SCREENSHOTS=docs.
 *
 * The two-device end-to-end run of the built main.js with IndexedDB: sync-two-devices.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstSyncPlan } from '../../plugin/sync/first-sync-plan';
import type { FirstSyncPlan } from '../../plugin/sync/first-sync-plan';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { InjectTransport } from '../helpers/inject-transport';
import { buildSyncTestApp } from '../companion/sync/sync-app';
import type { SyncTestApp } from '../companion/sync/sync-app';
import { testDevice } from '../plugin/sync/sync-device';
import type { TestDevice } from '../plugin/sync/sync-device';
import { TEST_TOKEN } from '../companion/helpers/app';
import { CompanionSyncClient } from '../../plugin/sync/sync-client';

// Skips loudly without Chromium (fails instead with CAIRN_REQUIRE_BROWSER=1).
const availability = browserAvailability();

/** `obsidian` for the page: the test shim, made before any screen module is evaluated. */
const SETUP = `
import { installDomHelpers } from './test/helpers/obsidian-shim/dom-helpers';
import { createObsidianApi } from './test/helpers/obsidian-shim/obsidian-api';
import { ResourceTracker } from './test/helpers/obsidian-shim/resource-tracker';
installDomHelpers(window);
const api = createObsidianApi({
  document,
  tracker: new ResourceTracker(),
  fetch: async () => ({ status: 599, text: '' }),
});
window.__obsidianApi = api;
window.__obsidian = api.module;
`;

const ENTRY = `
import './setup';
import { Notice } from 'obsidian';
import { SyncStatus } from './plugin/sync/sync-status';
import { SyncArchiveClient } from './plugin/sync/sync-archive-client';
import { SyncView } from './plugin/sync/obsidian/sync-ui';
import { PairModal } from './plugin/sync/obsidian/pair-modal';
import { ConflictsModal } from './plugin/sync/obsidian/conflicts-modal';
import { NoteHistoryModal, DeletedFilesModal } from './plugin/sync/obsidian/history-modals';
import { UnpairModal } from './plugin/sync/obsidian/unpair-modal';
import { parseSyncPairingLink } from './shared/protocol/sync-pairing';

const transport = {
  async request(request) {
    const body = request.body === undefined ? undefined
      : typeof request.body === 'string' ? request.body
      : btoa(String.fromCharCode(...new Uint8Array(request.body)));
    const answer = await window.cairnRequest({ ...request, body });
    const response = { status: answer.status, text: answer.text };
    if (answer.bytes !== undefined) {
      response.bytes = Uint8Array.from(atob(answer.bytes), (c) => c.charCodeAt(0)).buffer;
    }
    return response;
  },
};
const app = window.__obsidianApi.createApp();
let now = Date.parse('2026-11-27T10:06:00Z');
const status = new SyncStatus(() => now);
const settings = {
  companion: { url: 'https://nas.tail1234.ts.net', token: 't' },
  privacy: { offlineMode: false },
  sync: { enabled: true, deviceName: 'MacBook' },
};
const control = {
  app, status,
  settings: () => settings,
  updateSettings: async (change) => change(settings),
  running: () => true,
  syncNow: async () => {}, pull: async () => {},
  isPaused: () => false, setPaused: () => {},
  heldDeletes: () => [], confirmHold: async () => {}, cancelHold: async () => {},
  archive: () => new SyncArchiveClient(transport, () => ({ url: 'https://nas.tail1234.ts.net', token: 't', offlineMode: false }), () => 'MacBook'),
  deviceName: () => 'MacBook',
  refresh: () => {},
  otherSyncTool: async () => null,
  stateStoreName: () => 'cairn-sync-shimvault0001',
  unpair: async () => 'unpaired',
  notDownloaded: async () => window.cairn.kept,
  downloadNow: async () => 'done',
};
window.cairn = {
  app, status, settings, kept: [],
  setNow(ms) { now = ms; },
  writeFile(path, text) { return app.vault.writeFile(path, text); },
  async openView() {
    const leaf = app.workspace.getRightLeaf(false);
    document.body.classList.add('cairn-shot-view');
    const view = new SyncView(leaf, control, () => {});
    leaf.view = view;
    view.containerEl = document.querySelector('.cairn-shot-leaf');
    view.contentEl = view.containerEl;
    await view.onOpen();
    return true;
  },
  openPair(link) {
    const modal = new PairModal(app, control, link === undefined ? undefined : parseSyncPairingLink(link));
    modal.open();
    window.cairn.modal = modal;
  },
  showPlan(link, plan) {
    const modal = new PairModal(app, control, undefined);
    modal.open();
    modal.contentEl.empty();
    const parsed = parseSyncPairingLink(link);
    modal.showPlan(parsed.pairing, plan);
  },
  openConflicts() { new ConflictsModal(app).open(); },
  openHistory(path) {
    const file = app.vault.getFileByPath(path);
    new NoteHistoryModal(app, control, file).open();
  },
  openDeleted() { new DeletedFilesModal(app, control).open(); },
  openUnpair() { new UnpairModal(app, control).open(); },
  closeAll() { document.querySelectorAll('.modal-container').forEach((el) => el.remove()); document.body.classList.remove('cairn-shot-view'); },
};
`;

const LIGHT = `
:root { --background-primary: #ffffff; --background-secondary: #f6f6f6; --background-secondary-alt: #fafafa;
  --background-modifier-border: #e0e0e0; --text-normal: #222222; --text-muted: #5c5c5c;
  --text-error: #e93147; --text-warning: #ec7500; --text-success: #08b94e; --interactive-accent: #8a5cf5;
  --text-on-accent: #fff; --color-yellow-rgb: 224, 172, 0; --modal-background: #ffffff; --shadow: rgba(0,0,0,0.25); }`;
const DARK = `
:root { --background-primary: #1e1e1e; --background-secondary: #262626; --background-secondary-alt: #2a2a2a;
  --background-modifier-border: #3f3f3f; --text-normal: #dadada; --text-muted: #a3a3a3;
  --text-error: #fb464c; --text-warning: #e9973f; --text-success: #44cf6e; --interactive-accent: #8a5cf5;
  --text-on-accent: #fff; --color-yellow-rgb: 224, 222, 113; --modal-background: #1e1e1e; --shadow: rgba(0,0,0,0.6); }`;
/** Obsidian's layout for the pieces the screens use (modal, setting rows, buttons). */
const BASE = `
:root { --font-interface: -apple-system, 'Segoe UI', Roboto, 'Inter', sans-serif; --font-monospace: 'DejaVu Sans Mono', monospace;
  --font-ui-smaller: 12px; --font-ui-small: 13px; --font-ui-medium: 15px; --font-ui-large: 18px; --font-semibold: 600;
  --size-4-1: 4px; --size-4-2: 8px; --size-4-3: 12px; --size-4-4: 16px; --size-4-5: 20px; --size-4-6: 24px;
  --radius-s: 4px; --radius-m: 8px; --color-green: #08b94e; --color-orange: #ec7500; --color-red: #e93147; --color-blue: #086ddd; }
html, body { margin: 0; height: 100%; background: var(--background-primary); color: var(--text-normal);
  font-family: var(--font-interface); font-size: 14px; }
button { font: inherit; font-size: var(--font-ui-small); padding: 4px 12px; min-height: 30px; border-radius: 6px; border: 0;
  color: var(--text-normal); background: var(--background-secondary); box-shadow: 0 0 0 1px var(--background-modifier-border); cursor: pointer; }
button.mod-cta { background: var(--interactive-accent); color: var(--text-on-accent); box-shadow: none; }
button.mod-warning { background: var(--color-red); color: #fff; box-shadow: none; }
button:disabled { opacity: 0.5; }
textarea, input { font: inherit; color: var(--text-normal); background: var(--background-primary); padding: 6px 8px;
  border-radius: 6px; border: 1px solid var(--background-modifier-border); }
.setting-item { display: flex; align-items: center; gap: 12px; padding: 12px 0; border-top: 1px solid var(--background-modifier-border); }
.setting-item-info { flex: 1 1 auto; }
.setting-item-name { font-weight: 500; }
.setting-item-name:empty, .setting-item-description:empty { display: none; }
.setting-item-info:has(.setting-item-name:empty):has(.setting-item-description:empty) { display: none; }
.setting-item-description { color: var(--text-muted); font-size: var(--font-ui-smaller); padding-top: 4px; }
.setting-item-control { display: flex; gap: 8px; align-items: center; justify-content: flex-end; }
.modal-container { position: fixed; inset: 0; display: flex; align-items: center; justify-content: center; background: var(--shadow); }
.modal { position: relative; background: var(--modal-background); border: 1px solid var(--background-modifier-border);
  border-radius: 12px; padding: 16px 20px; width: 560px; max-width: calc(100vw - 16px); max-height: 90vh; overflow-y: auto; box-sizing: border-box; }
.modal-title { font-size: 20px; font-weight: 600; margin-bottom: 8px; }
@media (max-width: 600px) { .modal { width: 100vw; max-width: 100vw; height: 100vh; max-height: 100vh; border-radius: 0; } }
.cairn-shot-leaf { display: none; width: 100%; max-width: 420px; height: 100%; box-sizing: border-box; overflow-y: auto;
  border-left: 1px solid var(--background-modifier-border); margin-left: auto; }
body.cairn-shot-view .cairn-shot-leaf { display: block; }
.notice { display: none; }
`;

describe.skipIf(!availability.available)('Cairn Sync screens in Chromium', () => {
  let browser: LaunchedBrowser;
  let t: SyncTestApp;
  let laptop: TestDevice;
  let plan: FirstSyncPlan;
  let kept: { path: string; size: number }[] = [];
  const keep = process.env.CAIRN_SCREENSHOTS === 'docs';
  const shots = keep
    ? resolve('docs/images/sync')
    : mkdtempSync(join(tmpdir(), 'cairn-sync-shots-'));

  beforeAll(async () => {
    // Real history, a deleted file and a conflict copy, made by two engines on the companion.
    t = await buildSyncTestApp({
      files: {
        'Trip to Lisbon.md':
          '# Trip to Lisbon\n\n- Flight TP 1351, 09:40\n- Hotel: Alfama, 3 nights\n- Pack the adapter\n',
        'Recipes/Bread.md': '# Bread\n\n500 g flour, 350 g water, 10 g salt\n',
        'Inbox.md': 'call the plumber\n',
      },
    });
    const phone = testDevice(t, 'Pixel 8');
    laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    t.clock.advance(60 * 60_000);
    phone.vault.userWrite(
      'Trip to Lisbon.md',
      '# Trip to Lisbon\n\n- Flight TP 1351, 09:40 (gate closes 09:20)\n- Hotel: Alfama, 3 nights\n- Pack the adapter\n',
    );
    await phone.engine.sync();
    t.clock.advance(5 * 60_000);
    laptop.vault.userWrite(
      'Trip to Lisbon.md',
      '# Trip to Lisbon\n\n- Flight TP 1351, 10:15 (moved)\n- Hotel: Alfama, 3 nights\n- Pack the adapter\n',
    );
    phone.vault.userDelete('Inbox.md');
    await phone.engine.sync();
    await laptop.engine.sync();
    // A video larger than a phone's download limit, on the companion only.
    t.write('Media/Site visit.mp4', new Uint8Array(2_400_000).fill(7));
    await t.sync.journal.rescan();
    const iphone = testDevice(t, 'iPhone', { engine: { downloadLimitBytes: 1_000_000 } });
    await iphone.engine.sync();
    kept = await iphone.engine.notDownloaded();
    expect(kept).toEqual([{ path: 'Media/Site visit.mp4', size: 2_400_000 }]);
    // A device that already has notes, for the plan.
    const tablet = testDevice(t, 'iPad');
    tablet.vault.userWrite('Recipes/Bread.md', '# Bread\n\n500 g flour, 350 g water, 10 g salt\n');
    tablet.vault.userWrite('Recipes/Soup.md', '# Soup\n\nleek, potato\n');
    tablet.vault.userWrite('Inbox.md', 'buy stamps\n');
    plan = await firstSyncPlan(
      tablet.vault,
      new CompanionSyncClient(
        new InjectTransport(() => t.app),
        () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
        () => 'iPad',
      ),
      undefined,
      undefined,
      1_000_000,
    );

    const { build } = await import('esbuild');
    const bundled = await build({
      stdin: { contents: ENTRY, resolveDir: resolve('.'), loader: 'ts', sourcefile: 'entry.ts' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
      plugins: [
        {
          name: 'page-obsidian',
          setup(pluginBuild) {
            pluginBuild.onResolve({ filter: /^obsidian$/ }, () => ({
              path: 'obsidian',
              namespace: 'page',
            }));
            pluginBuild.onResolve({ filter: /^\.\/setup$/ }, () => ({
              path: 'setup',
              namespace: 'page',
            }));
            pluginBuild.onLoad({ filter: /^obsidian$/, namespace: 'page' }, () => ({
              contents: 'module.exports = window.__obsidian;',
              loader: 'js',
            }));
            pluginBuild.onLoad({ filter: /^setup$/, namespace: 'page' }, () => ({
              contents: SETUP,
              loader: 'ts',
              resolveDir: resolve('.'),
            }));
          },
        },
      ],
    });
    const script = bundled.outputFiles[0]?.text ?? '';
    const css = ['styles/20-settings.css', 'styles/60-sync.css']
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    htmlFor = (dark: boolean, phone: boolean) =>
      `<!doctype html><html><head><meta charset="utf-8"><style>${BASE}\n${dark ? DARK : LIGHT}\n${css}</style></head>
<body class="${dark ? 'theme-dark' : 'theme-light'}${phone ? ' is-phone' : ''}"><div class="cairn-shot-leaf"></div>
<script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;
    browser = await launchChromium();
    if (keep) mkdirSync(shots, { recursive: true });
  }, 180_000);

  let htmlFor: (dark: boolean, phone: boolean) => string = () => '';

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (!keep) rmSync(shots, { recursive: true, force: true });
  });

  async function open(size: 'desktop' | 'phone', dark: boolean): Promise<Page> {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.exposeFunction(
      'cairnRequest',
      async (request: {
        url: string;
        method: 'GET';
        headers: Record<string, string>;
        body?: string;
        responseType?: 'text' | 'bytes';
      }) => {
        const transport = new InjectTransport(() => t.app);
        const answer = await transport.request({
          ...request,
          headers: { ...request.headers, Authorization: `Bearer ${TEST_TOKEN}` },
        });
        return {
          status: answer.status,
          text: answer.text,
          ...(answer.bytes ? { bytes: Buffer.from(answer.bytes).toString('base64') } : {}),
        };
      },
    );
    await page.setViewportSize(
      size === 'desktop' ? { width: 1280, height: 800 } : { width: 390, height: 844 },
    );
    // Served from http://localhost, a secure context like Obsidian's (crypto.subtle hashes blobs).
    const document = htmlFor(dark, size === 'phone');
    await page.route('http://localhost/sync', (route) =>
      route.fulfill({ body: document, contentType: 'text/html; charset=utf-8' }),
    );
    await page.goto('http://localhost/sync');
    expect(errors).toEqual([]);
    // The laptop's vault, as the screens read it.
    for (const path of laptop.vault.paths()) {
      await page.evaluate(
        ([p, text]) =>
          (
            window as unknown as { cairn: { writeFile(p: string, x: string): void } }
          ).cairn.writeFile(p as string, text as string),
        [path, laptop.vault.text(path) ?? ''],
      );
    }
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.waitForTimeout(50);
    await page.screenshot({ path: join(shots, `${name}.png`) });
  }

  const call = (page: Page, script: string) => page.evaluate(script);

  for (const size of ['desktop', 'phone'] as const) {
    for (const dark of [false, true]) {
      const theme = dark ? 'dark' : 'light';
      it(`draws every screen with real data: ${size}, ${theme}`, async () => {
        const page = await open(size, dark);

        // The sync view: synced, with one conflict.
        await call(
          page,
          `cairn.setNow(Date.now() - 3 * 60_000); cairn.status.started(); cairn.status.requestStarted(false); cairn.status.requestEnded(undefined)`,
        );
        await call(page, 'cairn.openView()');
        await page.waitForSelector('.cairn-sync-state.is-synced');
        expect(await page.textContent('.cairn-sync-view')).toContain('1 conflict');
        await shot(page, `status-${size}-${theme}`);
        // Waiting for you: a held mass delete, listed.
        await call(
          page,
          `cairn.status.setHeld([{ hold: 'h1', paths: ['Recipes/Bread.md', 'Trip to Lisbon.md', 'Archive/2024.md'], files: 3 }])`,
        );
        await page.waitForSelector('.cairn-sync-held');
        expect(await page.textContent('.cairn-sync-state-title')).toBe(
          'Waiting for you: 3 deletes held',
        );
        await shot(page, `held-${size}-${theme}`);
        // A large file kept on the companion (this device's download limit), from a real engine;
        // the view counts it when it draws again (the held deletes resolved).
        await page.evaluate((files) => {
          (window as unknown as { cairn: { kept: unknown } }).cairn.kept = files;
        }, kept);
        await call(page, `cairn.status.setHeld([])`);
        await page.waitForSelector('text=1 large file kept on the companion');
        await shot(page, `kept-${size}-${theme}`);
        await call(page, `cairn.kept = []; cairn.closeAll()`);

        // Pairing: the link step, a plain-http address, the plan.
        await call(page, 'cairn.openPair()');
        await page.waitForSelector('.cairn-sync-link-input');
        await shot(page, `pair-link-${size}-${theme}`);
        await call(page, 'cairn.closeAll()');
        await call(
          page,
          `cairn.openPair('obsidian://cairn-sync-pair?url=http%3A%2F%2F192.168.1.20%3A8787&device=Pixel%208&token=abc')`,
        );
        await page.waitForSelector('.cairn-tone-warning');
        expect(await page.textContent('.modal')).toContain('tailscale serve');
        await shot(page, `pair-http-${size}-${theme}`);
        await call(page, 'cairn.closeAll()');
        await page.evaluate(
          (p) =>
            (
              window as unknown as { cairn: { showPlan(l: string, p: unknown): void } }
            ).cairn.showPlan(
              'obsidian://cairn-sync-pair?url=https%3A%2F%2Fnas.tail1234.ts.net&device=iPad&token=abc',
              p,
            ),
          plan,
        );
        await page.waitForSelector('.cairn-sync-plan');
        const counts = await page.$$eval('.cairn-sync-plan-count', (els) =>
          els.map((el) => el.textContent),
        );
        expect(counts).toEqual([
          String(plan.upload.count),
          String(plan.download.count),
          String(plan.onDemand.count),
          String(plan.identical.count),
          String(plan.conflict.count),
        ]);
        expect(plan.onDemand.paths).toEqual(['Media/Site visit.mp4']);
        await page.click('.cairn-sync-plan-row:nth-child(2) summary');
        await shot(page, `pair-plan-${size}-${theme}`);
        // Yes: the address, the device's token and name are saved and sync is on.
        await page.click('button:has-text("Start syncing")');
        await expect
          .poll(() => page.evaluate('cairn.settings.sync'))
          .toEqual({ enabled: true, deviceName: 'iPad' });
        expect(await page.evaluate('cairn.settings.companion')).toEqual({
          url: 'https://nas.tail1234.ts.net',
          token: 'abc',
        });
        await call(page, 'cairn.closeAll()');

        // Conflicts: the list, then the copy beside its note.
        await call(page, 'cairn.openConflicts()');
        await page.waitForSelector('.cairn-sync-list-item');
        // The laptop committed last: its version is the copy, the phone's stays the note.
        expect(await page.textContent('.cairn-sync-list-item')).toContain('MacBook');
        await page.click('.cairn-sync-list-item');
        await page.waitForSelector('.cairn-sync-diff');
        expect(await page.textContent('.cairn-sync-diff')).toContain('gate closes 09:20');
        expect(await page.textContent('.cairn-sync-diff')).toContain('10:15 (moved)');
        await shot(page, `conflicts-${size}-${theme}`);
        await call(page, 'cairn.closeAll()');

        // History of the note, a version against now.
        await call(page, `cairn.openHistory('Trip to Lisbon.md')`);
        await page
          .waitForSelector('.cairn-sync-list-item, .cairn-tone-error, .cairn-sync-empty', {
            timeout: 5000,
          })
          .catch(async () => console.log('DEBUG', await page.textContent('body')));
        expect(await page.textContent('.modal')).toContain('latest');
        const versions = await page.$$('.cairn-sync-list-item');
        expect(versions.length).toBeGreaterThanOrEqual(2);
        await versions[versions.length - 1]?.click();
        await page.waitForSelector('.cairn-sync-diff, .cairn-tone-error');
        expect(await page.textContent('.modal')).not.toContain('Not compared');
        expect(
          await page.$('.cairn-tone-error'),
          (await page.textContent('.modal')) ?? '',
        ).toBeNull();
        await shot(page, `history-${size}-${theme}`);
        await call(page, 'cairn.closeAll()');

        // Deleted files.
        await call(page, 'cairn.openDeleted()');
        await page.waitForSelector('.cairn-sync-check');
        expect(await page.textContent('.cairn-sync-check')).toContain('Inbox.md');
        await page.click('.cairn-sync-check input');
        await shot(page, `deleted-${size}-${theme}`);
        await call(page, 'cairn.closeAll()');

        // Unpairing: what stays on disk, what goes, before anything happens.
        await call(page, 'cairn.openUnpair()');
        await page.waitForSelector('.cairn-sync-unpair-stays');
        expect(await page.textContent('.modal')).toContain('nothing here is deleted');
        expect(await page.textContent('.cairn-sync-unpair-goes')).toContain(
          'cairn-sync-shimvault0001',
        );
        await shot(page, `unpair-${size}-${theme}`);
        await page.close();
      }, 60_000);
    }
  }
});
