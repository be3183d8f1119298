/**
 * Cairn Sync as two people's devices live it (issue #24, "Tried as users would"): two devices,
 * each the built main.js (what `npm run build` ships) loaded in its own headless Chromium page
 * over the test Obsidian shim, with the page's real IndexedDB for the sync state, syncing through
 * the built companion CLI on a temp vault and data folder. Each page is its own origin, so the
 * devices share no storage. The shim's `requestUrl` goes through the test process (as Obsidian's
 * goes through the app, outside the page, without CORS); "offline" is that bridge refusing to
 * connect, and it cuts the requests in flight.
 *
 * Pairing goes the user's way: `cairn-companion pair` for the laptop, `POST /api/v1/sync/devices`
 * for the phone, then the link through `obsidian://cairn-sync-pair`, the first-sync plan, and
 * "Start syncing". Assertions are about what a user sees: the files in each device's vault, the
 * files on the companion's disk, and the screens' text. Waits are on those outcomes (the runner's
 * long poll, or the "Sync vault with the companion now" command), never fixed sleeps.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';
import { buildPluginBundle } from '../helpers/plugin-bundle';

// Skips loudly without Chromium (fails instead with CAIRN_REQUIRE_BROWSER=1).
const availability = browserAvailability();
const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const OWNER_TOKEN = 'sync-two-devices-owner-0123456789';
const manifest = JSON.parse(readFileSync(join(repoRoot, 'manifest.json'), 'utf8')) as {
  id: string;
};

const TRIP = 'Trip to Lisbon.md';
const TRIP_V1 = '# Trip to Lisbon\n\n- Flight TP 1351, 09:40\n- Hotel: Alfama, 3 nights\n';
const BREAD = 'Recipes/Bread.md';
const BREAD_V1 = '# Bread\n\n500 g flour\n350 g water\n10 g salt\n';
const INBOX = 'Inbox.md';
const INBOX_HUB = 'call the plumber\n';
const INBOX_PHONE = 'buy stamps\n';
const SOUP = 'Recipes/Soup.md';
const SOUP_TEXT = '# Soup\n\nleek, potato\n';
const MAP = 'Attachments/Lisbon map.png';
/** Not UTF-8 (a PNG signature, then every byte value): text-only plumbing would mangle it. */
const MAP_BYTES = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  ...Array.from({ length: 256 }, (_, i) => 255 - i),
]);

/** The page's `obsidian` and the CommonJS loader for main.js, bundled for the browser. */
const SETUP = `
import * as codemirrorState from '@codemirror/state';
import * as codemirrorView from '@codemirror/view';
import { installDomHelpers } from './test/helpers/obsidian-shim/dom-helpers';
import { createObsidianApi } from './test/helpers/obsidian-shim/obsidian-api';
import { ResourceTracker } from './test/helpers/obsidian-shim/resource-tracker';

const toBase64 = (buffer) => {
  let text = '';
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text);
};
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0)).buffer;

installDomHelpers(window);
const api = createObsidianApi({
  document,
  tracker: new ResourceTracker(),
  // requestUrl through the test process: rejects like Obsidian's when nothing answers.
  fetch: async (request) => {
    const body = request.body === undefined ? undefined
      : typeof request.body === 'string' ? { text: request.body }
      : { base64: toBase64(request.body) };
    const answer = await window.cairnRequest({
      url: request.url,
      method: request.method ?? 'GET',
      headers: { ...(request.headers ?? {}), ...(request.contentType ? { 'content-type': request.contentType } : {}) },
      body,
    });
    return { status: answer.status, text: answer.text, bytes: fromBase64(answer.base64) };
  },
});
const app = api.createApp();
const modules = { obsidian: api.module, '@codemirror/state': codemirrorState, '@codemirror/view': codemirrorView };
const decoder = new TextDecoder();
window.device = {
  api,
  app,
  plugin: null,
  /** What Obsidian does at start: evaluate main.js as CommonJS, construct, load, layout ready. */
  async start(manifest) {
    const module = { exports: {} };
    window.cairnMain(module, module.exports, (name) => {
      if (!(name in modules)) throw new Error('main.js asked for ' + name);
      return modules[name];
    });
    const Plugin = module.exports.default ?? module.exports;
    this.plugin = new Plugin(app, manifest);
    await this.plugin.load();
    app.workspace.triggerLayoutReady();
  },
  write(path, text) { return app.vault.writeFile(path, text); },
  async edit(path, text) {
    const file = app.vault.getFileByPath(path);
    if (file) await app.vault.modify(file, text); else await app.vault.create(path, text);
  },
  async attach(path, base64) { await app.vault.createBinary(path, fromBase64(base64)); },
  openSettings() {
    const tab = app.settingTabs[0];
    document.body.appendChild(tab.containerEl);
    tab.display();
  },
  settings() { return JSON.parse(app.pluginData.get('cairn') ?? '{}'); },
  openNote(path) { app.workspace.setActiveFile(app.vault.getFileByPath(path)); },
  async remove(path) { await app.vault.delete(app.vault.getFileByPath(path)); },
  files() {
    const out = {};
    for (const file of app.vault.getFiles()) out[file.path] = toBase64(app.vault.bytes(file.path));
    return out;
  },
  text(path) {
    const bytes = app.vault.bytes(path);
    return bytes === null ? null : decoder.decode(bytes);
  },
  command(id) {
    const command = app.commands.get(id);
    if (!command) throw new Error('no command ' + id);
    if (command.callback) return command.callback();
    if (!command.checkCallback(true)) throw new Error('command not available now: ' + id);
    return command.checkCallback(false);
  },
  openLink(link) {
    const query = link.slice(link.indexOf('?') + 1);
    const params = { action: 'cairn-sync-pair' };
    for (const part of query.split('&')) {
      const eq = part.indexOf('=');
      params[decodeURIComponent(part.slice(0, eq))] = decodeURIComponent(part.slice(eq + 1).replace(/\\+/g, ' '));
    }
    app.protocolHandlers.get('cairn-sync-pair')(params);
  },
  statusBar() { return document.querySelector('.cairn-sync-status')?.textContent ?? ''; },
  modalText() { return [...document.querySelectorAll('.modal')].map((el) => el.textContent).join('\\n'); },
  closeModals() { document.querySelectorAll('.modal-container').forEach((el) => el.remove()); },
};
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

interface BridgedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: { text: string } | { base64: string };
}

/** One device: a page of its own origin, the built plugin in it, its network switch. */
interface Device {
  name: string;
  page: Page;
  online: boolean;
  /** Requests in flight, cut when the device goes offline. */
  inFlight: Set<AbortController>;
  errors: string[];
}

describe.skipIf(!availability.available)('two devices syncing through the companion', () => {
  let work: string;
  let hubVault: string;
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let origin: string;
  let browser: LaunchedBrowser;
  let mainJs = '';
  let setupScript = '';
  let laptop: Device;
  let phone: Device;
  let phoneToken = '';
  let laptopToken = '';

  async function owner<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(`${origin}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${OWNER_TOKEN}`, 'content-type': 'application/json' },
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  function onHub(path: string): Buffer | null {
    const full = join(hubVault, path);
    return existsSync(full) ? readFileSync(full) : null;
  }
  const hubText = (path: string) => onHub(path)?.toString('utf8') ?? null;

  function seedHub(path: string, text: string): void {
    mkdirSync(dirname(join(hubVault, path)), { recursive: true });
    writeFileSync(join(hubVault, path), text);
  }

  async function openDevice(name: string, host: string): Promise<Device> {
    const page = await browser.context.newPage();
    const device: Device = { name, page, online: true, inFlight: new Set(), errors: [] };
    page.on('pageerror', (error) => device.errors.push(error.message));
    await page.exposeFunction('cairnRequest', async (request: BridgedRequest) => {
      if (!device.online) throw new Error('net::ERR_CONNECTION_REFUSED');
      const abort = new AbortController();
      device.inFlight.add(abort);
      try {
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          signal: abort.signal,
          ...(request.body === undefined
            ? {}
            : {
                body:
                  'text' in request.body
                    ? request.body.text
                    : Buffer.from(request.body.base64, 'base64'),
              }),
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        return {
          status: response.status,
          text: bytes.toString('utf8'),
          base64: bytes.toString('base64'),
        };
      } catch {
        throw new Error('net::ERR_CONNECTION_REFUSED');
      } finally {
        device.inFlight.delete(abort);
      }
    });
    const pageOrigin = `http://${host}.localhost`;
    await page.route(`${pageOrigin}/**`, (route) => {
      const url = route.request().url();
      if (url.endsWith('/main.js')) {
        return route.fulfill({
          contentType: 'text/javascript',
          body: `window.cairnMain = function (module, exports, require) {\n${mainJs}\n};`,
        });
      }
      if (url.endsWith('/setup.js')) {
        return route.fulfill({ contentType: 'text/javascript', body: setupScript });
      }
      return route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: '<!doctype html><html><head><meta charset="utf-8"></head><body><script src="/setup.js"></script><script src="/main.js"></script></body></html>',
      });
    });
    // *.localhost is a secure context (crypto.subtle hashes the files), and its own origin.
    await page.goto(`${pageOrigin}/`);
    await page.evaluate((m) => (window as unknown as Driver).device.start(m), manifest);
    return device;
  }

  function setOnline(device: Device, online: boolean): void {
    device.online = online;
    if (!online) for (const abort of device.inFlight) abort.abort();
  }

  interface Driver {
    device: {
      start(manifest: unknown): Promise<void>;
      write(path: string, text: string): void;
      edit(path: string, text: string): Promise<void>;
      attach(path: string, base64: string): Promise<void>;
      remove(path: string): Promise<void>;
      openNote(path: string): void;
      openSettings(): void;
      settings(): { companion?: { token?: string }; sync?: { enabled?: boolean } };
      files(): Record<string, string>;
      text(path: string): string | null;
      command(id: string): unknown;
      openLink(link: string): void;
      statusBar(): string;
      modalText(): string;
      closeModals(): void;
    };
  }
  /** Calls the page's driver (window.device, above) on this device. */
  const call = <K extends keyof Driver['device']>(
    device: Device,
    name: K,
    ...args: Parameters<Driver['device'][K]>
  ) =>
    device.page.evaluate(
      ([method, values]) =>
        ((window as unknown as Driver).device[method] as (...a: unknown[]) => unknown)(
          ...(values as unknown[]),
        ),
      [name, args] as const,
    ) as Promise<Awaited<ReturnType<Driver['device'][K]>>>;

  const textOn = (device: Device, path: string) => call(device, 'text', path);
  const filesOn = async (device: Device): Promise<Record<string, Buffer>> =>
    Object.fromEntries(
      Object.entries(await call(device, 'files')).map(([path, base64]) => [
        path,
        Buffer.from(base64, 'base64'),
      ]),
    );
  const syncNow = (device: Device) => call(device, 'command', commandId('sync-now'));
  const commandId = (id: string) => `${manifest.id}:${id}`;

  /** Files in the companion's vault folder (hidden ones are not synced). */
  function hubFiles(folder = hubVault, prefix = ''): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory())
        out.push(...hubFiles(join(folder, entry.name), `${prefix}${entry.name}/`));
      else out.push(`${prefix}${entry.name}`);
    }
    return out.sort();
  }

  beforeAll(async () => {
    ({ source: mainJs } = await buildPluginBundle('sync-two-devices'));
    await buildCompanionOnce();
    const { build } = await import('esbuild');
    const bundled = await build({
      stdin: { contents: SETUP, resolveDir: repoRoot, loader: 'js', sourcefile: 'setup.js' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    setupScript = bundled.outputFiles[0]?.text ?? '';

    work = mkdtempSync(join(tmpdir(), 'cairn-sync-two-'));
    hubVault = join(work, 'Notes');
    dataDir = join(work, 'data');
    mkdirSync(hubVault, { recursive: true });
    seedHub(TRIP, TRIP_V1);
    seedHub(BREAD, BREAD_V1);
    seedHub(INBOX, INBOX_HUB);

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
    );
    child = spawn(
      process.execPath,
      [CLI, '--vault', hubVault, '--data', dataDir, '--port', String(port)],
      { env: { ...env, CAIRN_TOKEN: OWNER_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`companion exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`companion never answered:\n${output}`);
      try {
        await owner('/api/v1/status');
        break;
      } catch {
        await new Promise((done) => setTimeout(done, 200));
      }
    }
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('pairs the laptop with the pair command: the plan, then the companion’s notes arrive', async () => {
    laptop = await openDevice('MacBook', 'laptop');
    expect(await call(laptop, 'statusBar')).not.toContain('Synced');
    // What the server's owner runs.
    const paired = spawnSync(
      process.execPath,
      [CLI, 'pair', '--name', 'MacBook', '--url', origin, '--vault', hubVault, '--data', dataDir],
      { encoding: 'utf8', env: { ...process.env, CAIRN_TOKEN: '' } },
    );
    expect(paired.status, paired.stderr).toBe(0);
    expect(paired.stdout).toContain('Pairing "MacBook"');
    const link = /obsidian:\/\/cairn-sync-pair\?\S+/.exec(paired.stdout)?.[0] ?? '';
    expect(link).toContain('device=MacBook');
    laptopToken = decodeURIComponent(/[?&]token=([^&]+)/.exec(link)?.[1] ?? '');

    // The camera opens the link: the pair screen, the plan, "Start syncing".
    await call(laptop, 'openLink', link);
    await laptop.page.waitForSelector('.cairn-sync-plan');
    const plan = await call(laptop, 'modalText');
    expect(plan).toContain('This device: MacBook');
    const counts = await laptop.page.$$eval('.cairn-sync-plan-count', (els) =>
      els.map((el) => el.textContent),
    );
    // The three notes, and the weekly digest's task note the companion wrote on its first start.
    expect(counts).toEqual(['0', '4', '0', '0']);
    await laptop.page.click('button:has-text("Start syncing")');

    await expect.poll(() => textOn(laptop, TRIP), { timeout: 20_000 }).toBe(TRIP_V1);
    expect(await textOn(laptop, BREAD)).toBe(BREAD_V1);
    expect(await textOn(laptop, INBOX)).toBe(INBOX_HUB);
    await expect.poll(() => call(laptop, 'statusBar')).toBe('Sync: Synced');
    // The sync state lives in this page's own IndexedDB.
    const databases = await laptop.page.evaluate(async () =>
      (await indexedDB.databases()).map((database) => database.name ?? ''),
    );
    expect(databases.some((name) => name.startsWith('cairn-sync-'))).toBe(true);
  });

  it('pairs the phone, which already has notes, through the pairing route: the first-sync plan', async () => {
    phone = await openDevice('Pixel 8', 'phone');
    // Notes the phone had before: one the same, one new, one different from the companion's.
    await call(phone, 'write', BREAD, BREAD_V1);
    await call(phone, 'write', SOUP, SOUP_TEXT);
    await call(phone, 'write', INBOX, INBOX_PHONE);
    const paired = await owner<{ link: string; token: string; token_name: string }>(
      '/api/v1/sync/devices',
      {
        method: 'POST',
        body: JSON.stringify({ device: 'Pixel 8', url: origin }),
      },
    );
    expect(paired.token_name).toBe('sync-Pixel-8');
    phoneToken = paired.token;

    await call(phone, 'openLink', paired.link);
    await phone.page.waitForSelector('.cairn-sync-plan');
    const counts = await phone.page.$$eval('.cairn-sync-plan-count', (els) =>
      els.map((el) => el.textContent),
    );
    // Upload Soup, download Trip (and the digest's task note), Bread the same, Inbox different.
    expect(counts).toEqual(['1', '2', '1', '1']);
    const rows = await phone.page.$$eval('.cairn-sync-plan-row', (els) =>
      els.map((el) => el.textContent ?? ''),
    );
    expect(rows[0]).toContain(SOUP);
    expect(rows[1]).toContain(TRIP);
    expect(rows[2]).toContain(BREAD);
    expect(rows[3]).toContain(INBOX);
    await phone.page.click('button:has-text("Start syncing")');

    await expect.poll(() => textOn(phone, TRIP), { timeout: 20_000 }).toBe(TRIP_V1);
    await expect.poll(() => hubText(SOUP), { timeout: 20_000 }).toBe(SOUP_TEXT);
    await expect.poll(() => textOn(laptop, SOUP), { timeout: 20_000 }).toBe(SOUP_TEXT);
    // The different Inbox: the companion's stays at the name, the phone's lands beside it. The
    // phone writes the companion's Inbox when its commit's answer settles, which under load can
    // come after the laptop already has the soup.
    await expect.poll(() => textOn(phone, INBOX), { timeout: 20_000 }).toBe(INBOX_HUB);
    expect(hubText(INBOX)).toBe(INBOX_HUB);
    const copy = hubFiles().find((path) => path.startsWith('Inbox.conflict-'));
    expect(copy, hubFiles().join(', ')).toBeDefined();
    expect(hubText(copy!)).toContain(INBOX_PHONE);
    await expect.poll(async () => Object.keys(await filesOn(phone)).sort()).toEqual(hubFiles());
    expect(phone.errors).toEqual([]);
  });

  it('an edit and an attachment on the laptop appear on the phone and on the companion', async () => {
    const edited = TRIP_V1 + '- Pack the adapter\n';
    await call(laptop, 'edit', TRIP, edited);
    await call(laptop, 'attach', MAP, Buffer.from(MAP_BYTES).toString('base64'));
    // No "Sync now": the laptop's pass after the edit settles, the phone's long poll.
    await expect.poll(() => textOn(phone, TRIP), { timeout: 20_000 }).toBe(edited);
    await expect
      .poll(async () => (await filesOn(phone))[MAP]?.toString('hex'), { timeout: 20_000 })
      .toBe(Buffer.from(MAP_BYTES).toString('hex'));
    expect(hubText(TRIP)).toBe(edited);
    expect(onHub(MAP)?.toString('hex')).toBe(Buffer.from(MAP_BYTES).toString('hex'));
  });

  it('offline edits on both devices reconcile after they reconnect, without a conflict', async () => {
    setOnline(laptop, false);
    setOnline(phone, false);
    await call(laptop, 'edit', BREAD, '# Bread\n\n500 g flour (type 65)\n350 g water\n10 g salt\n');
    await call(
      phone,
      'edit',
      BREAD,
      '# Bread\n\n500 g flour\n350 g water\n10 g salt\nbake 40 min\n',
    );
    await call(phone, 'write', 'Ideas.md', 'a shed for the bikes\n');
    // What a user sees while the companion is out of reach.
    await expect.poll(() => call(laptop, 'statusBar'), { timeout: 20_000 }).toBe('Sync: Offline');
    await expect.poll(() => call(phone, 'statusBar'), { timeout: 20_000 }).toBe('Sync: Offline');
    expect(hubText(BREAD)).toBe(BREAD_V1);

    setOnline(laptop, true);
    setOnline(phone, true);
    const merged = '# Bread\n\n500 g flour (type 65)\n350 g water\n10 g salt\nbake 40 min\n';
    await syncNow(laptop);
    await expect.poll(() => hubText(BREAD), { timeout: 20_000 }).toContain('type 65');
    await syncNow(phone);
    await expect.poll(() => hubText(BREAD), { timeout: 20_000 }).toBe(merged);
    await expect.poll(() => textOn(phone, BREAD), { timeout: 20_000 }).toBe(merged);
    await syncNow(laptop);
    await expect.poll(() => textOn(laptop, BREAD), { timeout: 20_000 }).toBe(merged);
    await expect
      .poll(() => textOn(laptop, 'Ideas.md'), { timeout: 20_000 })
      .toBe('a shed for the bikes\n');
    expect(hubFiles().filter((path) => path.startsWith('Recipes/Bread.conflict'))).toEqual([]);
    await expect.poll(() => call(phone, 'statusBar')).toBe('Sync: Synced');
  });

  it('an overlapping edit shows in the conflicts view, with both versions', async () => {
    setOnline(phone, false);
    await call(
      laptop,
      'edit',
      TRIP,
      '# Trip to Lisbon\n\n- Flight TP 1351, 10:15 (moved)\n- Hotel: Alfama, 3 nights\n- Pack the adapter\n',
    );
    await call(
      phone,
      'edit',
      TRIP,
      '# Trip to Lisbon\n\n- Flight TP 1351, 09:40 (gate closes 09:20)\n- Hotel: Alfama, 3 nights\n- Pack the adapter\n',
    );
    await expect.poll(() => hubText(TRIP), { timeout: 20_000 }).toContain('10:15 (moved)');
    setOnline(phone, true);
    await syncNow(phone);
    // The phone committed second: the note keeps the laptop's line, the phone's is the copy.
    await expect
      .poll(() => hubFiles().find((path) => path.startsWith('Trip to Lisbon.conflict-')), {
        timeout: 20_000,
      })
      .toBeDefined();
    await expect.poll(() => textOn(phone, TRIP), { timeout: 20_000 }).toContain('10:15 (moved)');

    await call(phone, 'command', commandId('sync-conflicts'));
    await phone.page.waitForSelector('.cairn-sync-list-item');
    const item = phone.page.locator('.cairn-sync-list-item', { hasText: TRIP });
    expect(await item.textContent()).toContain('Pixel 8');
    await item.click();
    await phone.page.waitForSelector('.cairn-sync-diff');
    const diff = (await phone.page.textContent('.cairn-sync-diff')) ?? '';
    expect(diff).toContain('10:15 (moved)');
    expect(diff).toContain('gate closes 09:20');
    await call(phone, 'closeModals');
    // The laptop sees the same conflict copy.
    const copy = hubFiles().find((path) => path.startsWith('Trip to Lisbon.conflict-'))!;
    await expect.poll(() => textOn(laptop, copy), { timeout: 20_000 }).toContain('gate closes');
  });

  it('a note’s history on the laptop: a version against now, restored as a new version', async () => {
    await call(laptop, 'openNote', TRIP);
    await call(laptop, 'command', commandId('sync-note-history'));
    await laptop.page.waitForSelector('.cairn-sync-list-item');
    const versions = laptop.page.locator('.cairn-sync-list-item');
    // The companion's first, the laptop's adapter line, the laptop's moved flight.
    expect(await versions.count()).toBeGreaterThanOrEqual(3);
    expect(await versions.first().textContent()).toContain('latest');
    expect(await versions.last().textContent()).toContain('the companion');
    await versions.last().click();
    await laptop.page.waitForSelector('.cairn-sync-diff');
    const diff = (await laptop.page.textContent('.cairn-sync-diff')) ?? '';
    expect(diff).toContain('09:40');
    expect(diff).toContain('10:15 (moved)');
    await laptop.page.click('.modal button:has-text("Restore this version")');
    await expect.poll(() => textOn(laptop, TRIP)).toBe(TRIP_V1);
    await expect.poll(() => hubText(TRIP), { timeout: 20_000 }).toBe(TRIP_V1);
    await expect.poll(() => textOn(phone, TRIP), { timeout: 20_000 }).toBe(TRIP_V1);
  });

  it('a note deleted on the laptop comes back from the phone’s deleted files', async () => {
    await call(laptop, 'remove', SOUP);
    await expect.poll(() => hubText(SOUP), { timeout: 20_000 }).toBeNull();
    await expect.poll(() => textOn(phone, SOUP), { timeout: 20_000 }).toBeNull();

    await call(phone, 'command', commandId('sync-deleted-files'));
    const row = phone.page.locator('.cairn-sync-check', { hasText: SOUP });
    await row.waitFor();
    expect(await row.textContent()).toContain('on MacBook');
    await row.locator('input').check();
    await phone.page.click('.modal button:has-text("Restore")');
    await expect.poll(() => textOn(phone, SOUP), { timeout: 20_000 }).toBe(SOUP_TEXT);
    await expect.poll(() => hubText(SOUP), { timeout: 20_000 }).toBe(SOUP_TEXT);
    await expect.poll(() => textOn(laptop, SOUP), { timeout: 20_000 }).toBe(SOUP_TEXT);
    await call(phone, 'closeModals');

    // Both devices and the companion hold the same files, byte for byte.
    const onLaptop = await filesOn(laptop);
    const onPhone = await filesOn(phone);
    expect(Object.keys(onLaptop).sort()).toEqual(hubFiles());
    expect(Object.keys(onPhone).sort()).toEqual(hubFiles());
    for (const path of hubFiles()) {
      expect(onLaptop[path]?.equals(onHub(path)!), path).toBe(true);
      expect(onPhone[path]?.equals(onHub(path)!), path).toBe(true);
    }
    expect(laptop.errors).toEqual([]);
    expect(phone.errors).toEqual([]);
  });

  it('unpairs the phone from its settings: token revoked, sync state gone, notes kept', async () => {
    const before = await filesOn(phone);
    await call(phone, 'openSettings');
    await phone.page.click('.setting-item:has-text("Unpair this device") button');
    await phone.page.waitForSelector('.cairn-sync-unpair-stays');
    const confirmation = await call(phone, 'modalText');
    expect(confirmation).toContain('Every note and attachment in this vault');
    expect(confirmation).toContain('IndexedDB database cairn-sync-');
    await phone.page.click('.modal button:has-text("Unpair")');
    await expect.poll(() => call(phone, 'settings').then((s) => s.sync?.enabled)).toBe(false);
    expect((await call(phone, 'settings')).companion?.token).toBe('');

    // The companion refuses the phone's token now; the owner's and the laptop's still work.
    const refused = await fetch(`${origin}/api/v1/sync/changes?since=0`, {
      headers: { authorization: `Bearer ${phoneToken}` },
    });
    expect(refused.status).toBe(401);
    await expect
      .poll(() =>
        phone.page.evaluate(async () =>
          (await indexedDB.databases()).some((d) => (d.name ?? '').startsWith('cairn-sync-')),
        ),
      )
      .toBe(false);
    // Every file stays on the phone, byte for byte.
    const after = await filesOn(phone);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const [path, bytes] of Object.entries(before)) {
      expect(after[path]?.equals(bytes), path).toBe(true);
    }
    // The laptop syncs on; the phone no longer receives.
    await call(laptop, 'write', 'After unpairing.md', 'only the laptop and the companion\n');
    await expect
      .poll(() => hubText('After unpairing.md'), { timeout: 20_000 })
      .toBe('only the laptop and the companion\n');
    expect(await textOn(phone, 'After unpairing.md')).toBeNull();
    expect(phone.errors).toEqual([]);
  });

  it('unpairs the laptop on this device only while the companion is out of reach', async () => {
    setOnline(laptop, false);
    await call(laptop, 'command', commandId('sync-unpair'));
    await laptop.page.click('.modal button:has-text("Unpair")');
    await laptop.page.waitForSelector('.cairn-sync-unpair-local');
    const said = await call(laptop, 'modalText');
    expect(said).toContain('The companion cannot be reached');
    expect(said).toContain('cairn-companion token revoke sync-MacBook');
    // Nothing changed yet.
    expect((await call(laptop, 'settings')).sync?.enabled).toBe(true);
    await laptop.page.click('.cairn-sync-unpair-local button');
    await expect.poll(() => call(laptop, 'settings').then((s) => s.sync?.enabled)).toBe(false);
    expect((await call(laptop, 'settings')).companion?.token).toBe('');
    await expect
      .poll(() =>
        laptop.page.evaluate(async () =>
          (await indexedDB.databases()).some((d) => (d.name ?? '').startsWith('cairn-sync-')),
        ),
      )
      .toBe(false);
    expect(await textOn(laptop, 'After unpairing.md')).toBe('only the laptop and the companion\n');
    // The companion was not told: the token works until it is revoked there.
    const still = await fetch(`${origin}/api/v1/sync/changes?since=0`, {
      headers: { authorization: `Bearer ${laptopToken}` },
    });
    expect(still.status).toBe(200);
    expect(laptop.errors).toEqual([]);
  });
});
