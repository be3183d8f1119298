import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task, TaskListResponse } from '../../shared/protocol/tasks';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

/*
 * The phone page's Tasks view (docs/tasks.md) on the built artifact: the release build of the
 * companion and its page, the real CLI on a copy of the sample vault, headless Chromium. Tasks
 * are made through the API; a one-off task runs for real: the companion is stopped before its
 * minute and started again with its wall clock past it (test/fakes/shifted-clock.mjs), so the
 * run on start is the scheduler's own. Assertions are about what a person sees and what the
 * switch writes into the task's note. CAIRN_SCREENSHOTS=docs keeps the pictures in
 * docs/images/tasks/.
 */
const availability = browserAvailability();
const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const SHIFTED_CLOCK = pathToFileURL(join(repoRoot, 'test/fakes/shifted-clock.mjs'));
const TOKEN = 'phone-tasks-token-0123456789abcdef';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const BROKEN_TASK = `---
id: broken-task
type: task
schedule: every other tuesday
action: ask
question: What is due?
---
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(!availability.available)('scheduled tasks on the phone page', () => {
  let work: string;
  let vault: string;
  let child: ChildProcess;
  let output = '';
  let origin: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const keepShots = process.env.CAIRN_SCREENSHOTS;
  const shots = keepShots
    ? resolve(repoRoot, keepShots, 'images/tasks')
    : mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(`${origin}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
      },
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  async function startCompanion(port: number, clockOffsetMs?: number): Promise<void> {
    output = '';
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
    );
    const node =
      clockOffsetMs === undefined
        ? []
        : ['--import', `${SHIFTED_CLOCK.href}?offset=${clockOffsetMs}`];
    child = spawn(
      process.execPath,
      [
        ...node,
        CLI,
        '--vault',
        vault,
        '--data',
        join(work, 'data'),
        '--port',
        String(port),
        '--timezone',
        'UTC',
      ],
      { env: { ...env, CAIRN_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const deadline = Date.now() + 90_000;
    while (!output.includes('task scheduler started')) {
      if (child.exitCode !== null) throw new Error(`companion exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the task scheduler never started:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function stopCompanion(): Promise<void> {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }

  async function shoot(name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shots, `${name}-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  const row = (name: string) => page.locator('#tasks-list li.task-row', { hasText: name });
  const onDisk = (path: string) => readFileSync(join(vault, path), 'utf8');

  beforeAll(async () => {
    await buildCompanionOnce();
    work = mkdtempSync(join(tmpdir(), 'cairn-phone-tasks-'));
    vault = join(work, 'Sample Vault');
    cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;

    // First start: the weekly digest task is created; two tasks through the API, one file by hand.
    await startCompanion(port);
    await api<Task>('/api/v1/tasks', {
      method: 'POST',
      body: JSON.stringify({
        name: 'House',
        schedule: '0 17 * * FRI',
        action: 'search',
        query: 'roof',
        deliver: ['note', 'push'],
      }),
    });
    // A whole minute at least a minute ahead: the companion is down over it.
    const slot = Math.ceil((Date.now() + 60_000) / 60_000) * 60_000;
    await api<Task>('/api/v1/tasks', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Visa',
        schedule: new Date(slot).toISOString().slice(0, 16),
        action: 'ask',
        question: 'What do I need for the visa appointment?',
      }),
    });
    mkdirSync(join(vault, 'Cairn/Tasks'), { recursive: true });
    writeFileSync(join(vault, 'Cairn/Tasks/Broken.md'), BROKEN_TASK);
    await stopCompanion();

    // Back 30 s after the slot: the one-off runs on start (inside the grace window).
    await startCompanion(port, slot + 30_000 - Date.now());
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { tasks } = await api<TaskListResponse>('/api/v1/tasks');
      if (tasks.find((task) => task.name === 'Visa')?.last_run?.status === 'succeeded') break;
      if (Date.now() > deadline) throw new Error(`the Visa task never ran:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    mkdirSync(shots, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    if (child) await stopCompanion();
    if (work) rmSync(work, { recursive: true, force: true });
    if (!keepShots) rmSync(shots, { recursive: true, force: true });
  });

  it('lists each task with its schedule in words, next run, state and last result', async () => {
    await page.goto(`${origin}/#token=${TOKEN}`);
    await page.waitForSelector('#home:not([hidden])');
    await page.click('#tab-tasks');
    await row('Visa').waitFor();
    const names = await page.locator('#tasks-list li.task-row .title').allInnerTexts();
    expect(names).toEqual(['House', 'Visa', 'Weekly digest']);

    const house = await row('House').innerText();
    expect(house).toMatch(/Every Friday at 17:00/);
    expect(house).toMatch(/Next: \w+/);
    expect(house).toContain('Not run yet');
    expect(await row('House').locator('input.switch').isChecked()).toBe(true);

    const digest = await row('Weekly digest').innerText();
    expect(digest).toMatch(/Every Monday at 08:00/);
    expect(digest).toMatch(/Next: (Mon\b|Tomorrow, |Today, )/);

    // The one-off ran: done, when, its first line, and a link to its runs note; no next run.
    const visa = row('Visa');
    expect(await visa.innerText()).toMatch(/^Once on \d+ \w+ \d{4} at \d\d:\d\d/m);
    expect(await visa.locator('.when').innerText()).toBe('No next run');
    expect(await visa.locator('.task-status').innerText()).toMatch(/^Done Today, /);
    // The run's first line, as the runs note on disk has it (the cited answer, or the matching
    // notes when the answer gate declines).
    const said = await visa.locator('.task-said').innerText();
    expect(said.trim()).not.toBe('');
    expect(onDisk('Cairn/Tasks/Visa (runs).md')).toContain(said.trim());
    const link = visa.locator('a.task-output');
    expect(await link.innerText()).toBe('Visa (runs)');
    expect(await link.getAttribute('href')).toBe(
      'obsidian://open?vault=Sample%20Vault&file=Cairn%2FTasks%2FVisa%20%28runs%29.md',
    );
    expect(onDisk('Cairn/Tasks/Visa (runs).md')).toContain('[[Travel/Visa rules|');

    // The hand-edited file that cannot run: its field and line.
    const broken = await page.locator('#tasks-invalid li').innerText();
    expect(await page.isVisible('#tasks-invalid-card')).toBe(true);
    expect(broken).toContain('Broken');
    expect(broken).toMatch(/Line 4, schedule: /);
    expect(broken).toContain('Cairn/Tasks/Broken.md:4');
    await shoot('phone-tasks');
  });

  it('turns a task off and on again with its switch, writing enabled: into its note', async () => {
    const house = row('House');
    const path = 'Cairn/Tasks/House.md';
    expect(onDisk(path)).toContain('enabled: true');
    await house.locator('input.switch').click();
    await expect
      .poll(() => row('House').locator('.when').innerText(), { timeout: 20_000 })
      .toBe('Off');
    expect(await row('House').locator('input.switch').isChecked()).toBe(false);
    expect(onDisk(path)).toContain('enabled: false');
    expect(await page.locator('#message').innerText()).toContain('House is off.');
    const { tasks } = await api<TaskListResponse>('/api/v1/tasks');
    expect(tasks.find((task) => task.name === 'House')).toMatchObject({
      enabled: false,
      next_run: null,
    });
    await shoot('phone-tasks-off');

    await row('House').locator('input.switch').click();
    await expect
      .poll(() => row('House').locator('.when').innerText(), { timeout: 20_000 })
      .toMatch(/^Next: /);
    expect(onDisk(path)).toContain('enabled: true');
    expect(await page.locator('#message').innerText()).toMatch(/House is on; next /);
  });

  it('reads at desktop width too', async () => {
    await page.setViewportSize(DESKTOP);
    await page.reload();
    await page.waitForSelector('#home:not([hidden])');
    await page.click('#tab-tasks');
    await row('Visa').waitFor();
    // The list keeps the page's column; rows do not stretch across the screen.
    const box = await page.locator('#tasks-list').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(700);
    await shoot('desktop-tasks');
    await page.setViewportSize(PHONE);
  });
});
