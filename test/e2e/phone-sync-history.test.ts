import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

/*
 * The phone page's History view (docs/sync.md "History and undelete") on the built artifact:
 * the release build of the companion and its page, the real CLI on a copy of the sample vault,
 * headless Chromium at 390 × 844. History is made the way devices make it, through the sync
 * routes (blobs, then commits from two named devices). Assertions are about what a person sees
 * and what lands on disk. CAIRN_SCREENSHOTS=docs keeps the pictures in docs/images/sync/.
 */
const availability = browserAvailability();
const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const TOKEN = 'phone-sync-history-token-0123456789';
const VIEWPORT = { width: 390, height: 844 };

const PACKING = 'Trip/Packing list.md';
const PACKING_V1 = '# Packing list\n\n- passport\n- charger\n';
const PACKING_V2 = '# Packing list\n\n- passport\n- charger\n- rain jacket\n';
const PACKING_V3 = '# Packing list\n\n- (cleared by mistake)\n';
const IDEA = 'Ideas/Garden shed.md';
const IDEA_TEXT = '# Garden shed\n\nA lean-to against the north wall.\n';
const RECIPE = 'Recipes/Lentil soup.md';
const RECIPE_TEXT = '# Lentil soup\n\nRed lentils, cumin, lemon.\n';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface CommitAnswer {
  results: { status: string; file_id: string; hash: string; path: string }[];
}

describe.skipIf(!availability.available)('history and deleted files on the phone page', () => {
  let work: string;
  let vault: string;
  let child: ChildProcess;
  let output = '';
  let origin: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const dialogs: string[] = [];
  const keepShots = process.env.CAIRN_SCREENSHOTS;
  const shots = keepShots
    ? resolve(repoRoot, keepShots, 'images/sync')
    : mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  async function api<T>(path: string, init: RequestInit = {}, token = TOKEN): Promise<T> {
    const response = await fetch(`${origin}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(typeof init.body === 'string' && !path.includes('/blobs/')
          ? { 'content-type': 'application/json' }
          : {}),
      },
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? null : await response.json()) as T;
  }

  /** What a device does to sync a change: upload the bytes, then commit the op. */
  async function put(
    device: string,
    path: string,
    text: string,
    base?: { id: string; hash: string },
  ) {
    await api(`/api/v1/sync/blobs/${sha256(text)}`, { method: 'PUT', body: text });
    const answer = await api<CommitAnswer>('/api/v1/sync/commit', {
      method: 'POST',
      body: JSON.stringify({
        device,
        ops: [
          base === undefined
            ? { path, base: null, hash: sha256(text) }
            : { path, file_id: base.id, base: base.hash, hash: sha256(text) },
        ],
      }),
    });
    const result = answer.results[0]!;
    expect(result.status).toBe('accepted');
    return { id: result.file_id, hash: result.hash };
  }

  async function remove(device: string, file: { id: string; hash: string }) {
    const answer = await api<CommitAnswer>('/api/v1/sync/commit', {
      method: 'POST',
      body: JSON.stringify({ device, ops: [{ file_id: file.id, base: file.hash, delete: true }] }),
    });
    expect(answer.results[0]!.status).toBe('accepted');
  }

  function onDisk(path: string): string | null {
    const full = join(vault, path);
    return existsSync(full) ? readFileSync(full, 'utf8') : null;
  }

  async function shoot(name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shots, `${name}-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  beforeAll(async () => {
    await buildCompanionOnce();
    work = mkdtempSync(join(tmpdir(), 'cairn-phone-history-'));
    vault = join(work, 'Sample Vault');
    cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
    );
    child = spawn(
      process.execPath,
      [CLI, '--vault', vault, '--data', join(work, 'data'), '--port', String(port)],
      { env: { ...env, CAIRN_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`companion exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`companion never answered:\n${output}`);
      try {
        await api('/api/v1/status');
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    // Three versions of the packing list from two devices; two notes deleted, one per device.
    const v1 = await put('Pixel 8', PACKING, PACKING_V1);
    const v2 = await put('MacBook', PACKING, PACKING_V2, v1);
    await put('Pixel 8', PACKING, PACKING_V3, v2);
    const idea = await put('MacBook', IDEA, IDEA_TEXT);
    const recipe = await put('MacBook', RECIPE, RECIPE_TEXT);
    await remove('Pixel 8', idea);
    await remove('MacBook', recipe);
    expect(onDisk(IDEA)).toBeNull();
    expect(onDisk(RECIPE)).toBeNull();
    expect(onDisk(PACKING)).toBe(PACKING_V3);

    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize(VIEWPORT);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    mkdirSync(shots, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    if (work) rmSync(work, { recursive: true, force: true });
    if (!keepShots) rmSync(shots, { recursive: true, force: true });
  });

  function trashRow(path: string) {
    return page.locator('#sync-trash li.sync-row', { hasText: path });
  }

  it('lists deleted files with when and which device, and restores two at once', async () => {
    await page.goto(`${origin}/#token=${TOKEN}`);
    await page.waitForSelector('#home:not([hidden])');
    await page.click('#tab-sync');
    await trashRow(IDEA).waitFor();
    expect(await trashRow(IDEA).innerText()).toMatch(/Deleted Today, .+ on Pixel 8/);
    expect(await trashRow(RECIPE).innerText()).toMatch(/Deleted Today, .+ on MacBook/);
    // Nothing ticked: nothing to restore.
    expect(await page.isDisabled('#sync-restore')).toBe(true);

    await trashRow(IDEA).locator('input[type=checkbox]').check();
    expect(await page.textContent('#sync-restore')).toBe('Restore');
    await trashRow(RECIPE).locator('label').click();
    expect(await page.textContent('#sync-restore')).toBe('Restore 2 files');
    await shoot('web-deleted');

    await page.click('#sync-restore');
    await page.waitForSelector('#message:not([hidden])');
    expect(dialogs.at(-1)).toContain('Restore these 2 files?');
    expect(dialogs.at(-1)).toContain(IDEA);
    expect(await page.textContent('#message')).toContain('Restored 2 files.');
    await page.locator('#sync-trash', { hasText: 'No deleted files.' }).waitFor();
    expect(onDisk(IDEA)).toBe(IDEA_TEXT);
    expect(onDisk(RECIPE)).toBe(RECIPE_TEXT);
  });

  it('shows a note’s versions and their text, and restores one as a new version', async () => {
    await page.fill('#sync-history-path', PACKING);
    await page.press('#sync-history-path', 'Enter');
    const rows = page.locator('#sync-versions li.sync-row');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(0).innerText()).toMatch(/Today, .+ · latest\s+Pixel 8 ·/);
    expect(await rows.nth(1).innerText()).toMatch(/MacBook · 51 B/);

    // The latest is what is there now: it cannot be "restored".
    await rows.nth(0).locator('button').click();
    await page.locator('#sync-version-text', { hasText: 'cleared by mistake' }).waitFor();
    expect(await page.isVisible('#sync-version-restore')).toBe(false);
    expect(await page.isVisible('#sync-version-diff-group')).toBe(false);

    await rows.nth(1).locator('button').click();
    await page.locator('#sync-version-text', { hasText: 'rain jacket' }).waitFor();
    expect(await page.textContent('#sync-version-text')).toBe(PACKING_V2);
    expect(await rows.nth(1).getAttribute('aria-current')).toBe('true');
    expect(await rows.nth(0).getAttribute('aria-current')).toBeNull();
    expect(await page.textContent('#sync-version-title')).toMatch(/on MacBook$/);
    expect(await page.isVisible('#sync-version-restore')).toBe(true);
    // That version against now: its lines that went, the line that came.
    const removed = await page.$$eval('#sync-version-diff li.is-removed', (items) =>
      items.map((item) => item.textContent),
    );
    const added = await page.$$eval('#sync-version-diff li.is-added', (items) =>
      items.map((item) => item.textContent),
    );
    expect(removed).toEqual(['- passport', '- charger', '- rain jacket']);
    expect(added).toEqual(['- (cleared by mistake)']);
    expect(await page.textContent('#sync-version-diff')).toContain('# Packing list');
    // The picture without the earlier restore's confirmation (it fades by itself).
    await page.waitForSelector('#message', { state: 'hidden', timeout: 10_000 });
    await shoot('web-history');

    await page.click('#sync-version-restore');
    await page.locator('#message', { hasText: `Restored ${PACKING}.` }).waitFor();
    expect(dialogs.at(-1)).toContain('written as a new version');
    expect(onDisk(PACKING)).toBe(PACKING_V2);
    // A new version on top; the mistaken one stays in history.
    await page.locator('#sync-versions li.sync-row').nth(3).waitFor();
    expect(await rows.count()).toBe(4);
    expect(await rows.nth(0).innerText()).toMatch(/latest\s+Phone page · 51 B/);
  });

  it('opens the history of a deleted file from the deleted list', async () => {
    const idea = await api<{ file_id: string; versions: { hash: string }[] }>(
      `/api/v1/sync/history?path=${encodeURIComponent(IDEA)}`,
    );
    await remove('MacBook', { id: idea.file_id, hash: idea.versions[0]!.hash });
    await page.click('#tab-week');
    await page.click('#tab-sync');
    await trashRow(IDEA).getByRole('button', { name: 'History' }).click();
    expect(await page.inputValue('#sync-history-path')).toBe(IDEA);
    await page.locator('#sync-versions li.sync-row').first().waitFor();
    expect(await page.locator('#sync-versions').innerText()).toContain('MacBook');
  });

  it('restores a folder as it was at a time, with the deleted note back', async () => {
    // Between the idea's undelete (first test) and its delete (the test above).
    const history = await api<{ versions: { time: string }[] }>(
      `/api/v1/sync/history?path=${encodeURIComponent(IDEA)}`,
    );
    const trash = await api<{ files: { path: string; deleted: string }[] }>('/api/v1/sync/trash');
    const deleted = Date.parse(trash.files.find((file) => file.path === IDEA)!.deleted);
    const at = Math.ceil(Date.parse(history.versions[0]!.time) / 1000) * 1000;
    expect(at, 'the undelete and the delete were in the same second').toBeLessThan(deleted);
    expect(onDisk(IDEA)).toBeNull();

    await page.fill('#sync-folder-path', 'Ideas');
    // The phone's own clock and zone write the field, as a person picking the time would.
    const local = await page.evaluate((ms) => {
      const d = new Date(ms);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    }, at);
    await page.fill('#sync-folder-at', local);
    await page.waitForSelector('#message', { state: 'hidden', timeout: 10_000 });
    await page.click('#sync-folder-restore');
    await page.locator('#message', { hasText: `Restored ${IDEA}.` }).waitFor();
    expect(dialogs.at(-1)).toContain('Restore “Ideas” as it was');
    expect(onDisk(IDEA)).toBe(IDEA_TEXT);
    // The rest of the vault is as it was.
    expect(onDisk(PACKING)).toBe(PACKING_V2);
    await page.locator('#sync-folder-form').scrollIntoViewIfNeeded();
    await shoot('web-folder-restore');
  });

  it('says what to do when the token lacks the sync scope', async () => {
    const created = await api<{ token: string }>('/api/v1/tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'phone-no-sync', scopes: ['read', 'write'] }),
    });
    const other = await browser.context.newPage();
    await other.setViewportSize(VIEWPORT);
    try {
      await other.goto(`${origin}/#token=${created.token}`);
      await other.waitForSelector('#home:not([hidden])');
      await other.click('#tab-sync');
      await other.waitForSelector('#sync-scope:not([hidden])');
      expect(await other.textContent('#sync-scope')).toContain('has no sync scope');
      expect(await other.textContent('#sync-trash')).toContain('Needs the sync scope.');
    } finally {
      await other.close();
    }
  });
});
