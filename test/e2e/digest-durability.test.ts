import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatIsoWeek, isoWeekOfDay } from '../../shared/calendar';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

/*
 * docs/memory-digest-calendar.md: the weekly digest is written exactly once per week across kill -9 and restarts,
 * with the built CLI on a real vault and database. The slot is set (`--digest`) to a whole
 * minute in UTC a few minutes ahead; the companion is killed before it, stays down over it,
 * writes the digest on the next start, is killed again right after the file appears, and the
 * starts after that neither rewrite it nor bring it back once the user deleted it. The starts
 * after the slot run with their wall clock set past it (test/fakes/shifted-clock.mjs) rather
 * than waiting for the real minute: the downtime is skipped, not simulated inside the process.
 */

const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const DAY = 86_400_000;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

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

const SHIFTED_CLOCK = pathToFileURL(join(repoRoot, 'test/fakes/shifted-clock.mjs'));

/** Starts the built CLI; with `clockOffsetMs`, its wall clock runs that far ahead of the real one. */
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

async function until(
  what: string,
  running: Running,
  check: () => boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (running.child.exitCode !== null)
      throw new Error(`companion exited while waiting for ${what}:\n${running.stderr()}`);
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}:\n${running.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
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
  work = mkdtempSync(join(tmpdir(), 'cairn-e2e-digest-'));
  vault = join(work, 'vault');
  dataDir = join(work, 'data');
  cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });
});
afterEach(async () => {
  if (running && running.child.exitCode === null) await kill9(running);
  running = null;
  rmSync(work, { recursive: true, force: true });
});

describe('weekly digest across kill -9', () => {
  it(
    'is written once: on the start after downtime over its slot, never again',
    { timeout: 240_000 },
    async () => {
      // The next whole minute at least 2 min away (the first start must be up before it, also on
      // a loaded machine), as "<weekday> HH:MM" in UTC.
      const slot = Math.ceil((Date.now() + 120_000) / 60_000) * 60_000;
      const slotDate = new Date(slot);
      const digest = `${DAYS[(slotDate.getUTCDay() + 6) % 7]} ${String(slotDate.getUTCHours()).padStart(2, '0')}:${String(slotDate.getUTCMinutes()).padStart(2, '0')}`;
      // The digest at a slot covers the ISO week holding the day before it.
      const week = formatIsoWeek(isoWeekOfDay(Math.floor(slot / DAY) - 1));
      const file = join(vault, 'Cairn/Digests', `${week}.md`);
      const port = String(await freePort());
      const args = [
        '--vault',
        vault,
        '--data',
        dataDir,
        '--port',
        port,
        '--timezone',
        'UTC',
        '--digest',
        digest,
      ];
      const started = (r: Running) => () => r.stderr().includes('digest schedule started');

      // First start (before the slot): nothing written, then killed.
      running = startCli(args);
      await until('the digest schedule', running, started(running));
      expect(existsSync(file)).toBe(false);
      await kill9(running);

      // Down over the slot; the next start writes it. Killed as soon as the file is there. From
      // here on the companion's clock reads 1 s past the slot at this moment and runs on.
      const pastSlot = slot + 1_000 - Date.now();
      expect(pastSlot).toBeGreaterThan(1_000);
      running = startCli(args, pastSlot);
      await until('the digest file', running, () => existsSync(file));
      await kill9(running);
      const written = readFileSync(file, 'utf8');
      const inode = statSync(file).ino;
      expect(written).toMatch(new RegExp(`^---\\ntype: digest\\nweek: ${week}\\n`));

      // Restarted: the same file, not rewritten, and recorded once.
      running = startCli(args, pastSlot);
      await until('the digest schedule', running, started(running));
      expect(readdirSync(join(vault, 'Cairn/Digests'))).toEqual([`${week}.md`]);
      expect(readFileSync(file, 'utf8')).toBe(written);
      expect(statSync(file).ino).toBe(inode);
      await kill9(running);
      const db = new Database(join(dataDir, 'cairn.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT week, status FROM digest_weeks ORDER BY week').all()).toEqual(
          expect.arrayContaining([{ week, status: 'written' }]),
        );
      } finally {
        db.close();
      }

      // The user deletes it: the schedule does not write that week again.
      rmSync(file);
      running = startCli(args, pastSlot);
      await until('the digest schedule', running, started(running));
      expect(existsSync(file)).toBe(false);
      // A clean stop once serving (the signal handlers are installed after the listen).
      for (let attempt = 0; attempt < 100; attempt++) {
        const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
          (response) => response.ok,
          () => false,
        );
        if (ok) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      running.child.kill('SIGTERM');
      const code = await running.exit;
      expect(code, running.stderr().slice(-3000)).toBe(0);
    },
  );
});
