import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

/*
 * docs/tasks.md: a scheduled task runs exactly once for its slot across kill -9, with the built
 * CLI on a real vault and database. The task (a once task at a whole minute a few minutes
 * ahead, in UTC) is planned by a first start that is killed before the slot; the next start,
 * its wall clock set past the slot (test/fakes/shifted-clock.mjs), runs it inside the grace
 * window and is killed the moment the run is logged (possibly before its claim is marked done:
 * the slot is then handed over again); the starts after that leave one entry in the note and
 * one run in the history.
 */

const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const SHIFTED_CLOCK = pathToFileURL(join(repoRoot, 'test/fakes/shifted-clock.mjs'));

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Running {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

function startCli(args: string[], clockOffsetMs?: number): Running {
  const node =
    clockOffsetMs === undefined
      ? []
      : ['--import', `${SHIFTED_CLOCK.href}?offset=${clockOffsetMs}`];
  const child = spawn(process.execPath, [...node, CLI, ...args], {
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exit };
}

async function until(what: string, running: Running, check: () => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (running.child.exitCode !== null)
      throw new Error(`companion exited while waiting for ${what}:\n${running.stderr()}`);
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}:\n${running.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function kill9(running: Running): Promise<void> {
  running.child.kill('SIGKILL');
  await running.exit;
}

beforeAll(async () => {
  await buildCompanionOnce();
});

let work: string;
let vault: string;
let dataDir: string;
let running: Running | null = null;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'cairn-e2e-tasks-'));
  vault = join(work, 'vault');
  dataDir = join(work, 'data');
  cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });
});
afterEach(async () => {
  if (running && running.child.exitCode === null) await kill9(running);
  running = null;
  rmSync(work, { recursive: true, force: true });
});

describe('scheduled task across kill -9', () => {
  it('runs its slot exactly once', { timeout: 300_000 }, async () => {
    const slot = Math.ceil((Date.now() + 120_000) / 60_000) * 60_000;
    const local = new Date(slot).toISOString().slice(0, 16);
    mkdirSync(join(vault, 'Cairn/Tasks'), { recursive: true });
    writeFileSync(
      join(vault, 'Cairn/Tasks/Visa.md'),
      `---\nid: visa-e2e\ntype: task\nschedule: ${local}\ntimezone: UTC\naction: ask\nquestion: What is the visa fee?\ndeliver: [note]\n---\n`,
    );
    const note = join(vault, 'Cairn/Tasks/Visa (runs).md');
    const port = String(await freePort());
    const args = ['--vault', vault, '--data', dataDir, '--port', port, '--timezone', 'UTC'];
    const started = (r: Running) => () => r.stderr().includes('task scheduler started');

    // First start, before the slot: the task is planned, nothing runs.
    running = startCli(args);
    await until('the task scheduler', running, started(running));
    expect(existsSync(note)).toBe(false);
    await kill9(running);

    // Down over the slot; the next start runs it (inside the 24 h grace window). Killed as soon
    // as the note is there.
    const pastSlot = slot + 1_000 - Date.now();
    expect(pastSlot).toBeGreaterThan(1_000);
    running = startCli(args, pastSlot);
    await until('the runs note', running, () => existsSync(note));
    await until('the run recorded', running, () =>
      running!.stderr().includes('scheduled task ran'),
    );
    await kill9(running);

    // Two more starts: whatever the kill interrupted finishes, nothing runs twice.
    for (let start = 0; start < 2; start++) {
      running = startCli(args, pastSlot);
      await until('the task scheduler', running, started(running));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await kill9(running);
    }

    const text = readFileSync(note, 'utf8');
    expect(text.match(/^## /gm)).toHaveLength(1);
    expect(text).toContain(`## ${local.replace('T', ' ')} (UTC)`);
    expect(text).toContain('€90');
    expect(text).toContain('[[Travel/Visa rules');
    const db = new Database(join(dataDir, 'cairn.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT task_id, slot, status FROM task_runs').all()).toEqual([
        { task_id: 'visa-e2e', slot, status: 'succeeded' },
      ]);
      expect(db.prepare('SELECT reminder_id, occurrence, state FROM task_claims').all()).toEqual([
        { reminder_id: 'visa-e2e', occurrence: slot, state: 'sent' },
      ]);
    } finally {
      db.close();
    }
  });
});
