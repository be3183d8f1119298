import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nextOccurrences } from '../../../shared/reminders/recurrence';
import { repoRoot } from '../../helpers/corpora';
import { tempDir } from '../helpers/app';

/*
 * The scheduler in a real child process on a real SQLite file on disk, killed with SIGKILL at
 * random moments (while sleeping, between claim and send, mid-send, between the push service
 * accepting and the `sent` commit), restarted after short and long downtime, and checked:
 * every occurrence up to each reminder's high-water mark reached each device, or is on the
 * missed list; nothing was sent twice except in the one window no sender can close (accepted
 * by push, killed before the commit), which the test identifies exactly from the database at
 * each kill.
 *
 * Time in the child runs 1,200× faster than real time (one minute every 50 ms) through the
 * scheduler's own Clock and TimerPort, so an hour of reminders takes three seconds.
 */
const SPEED = 1200;
const MINUTE = 60_000;
const BASE = Date.parse('2026-11-23T08:00:00Z');
const GRACE_MS = 2 * MINUTE;
const DEVICES = ['phone', 'tablet'];

/** Reminders spaced wider than the grace window, so no two occurrences of one collapse. */
const CHILD_SOURCE = `
import { appendFileSync } from 'node:fs';
import { openDatabase } from './companion/db/open';
import { ReminderScheduler } from './companion/reminders/scheduler';
import { InMemoryReminderSource } from './companion/reminders/reminder-source';

const [dbFile, deliveredFile, virtualStartText, retryRateText] = process.argv.slice(2);
const SPEED = ${SPEED};
const BASE = ${BASE};
const MINUTE = 60000;
const realStart = performance.now();
const virtualStart = Number(virtualStartText);
const clock = { now: () => Math.floor(virtualStart + (performance.now() - realStart) * SPEED) };
const timer = {
  set: (callback, delayMs) => setTimeout(callback, delayMs / SPEED),
  clear: (handle) => clearTimeout(handle),
};
const link = (id) => 'obsidian://open?vault=V&file=' + id;
const reminders = [
  { id: 'every5-utc', title: 'a', path: 'a.md', status: 'active', taskChecked: false, deepLink: link('a'),
    schedule: { kind: 'recurring', rrule: 'FREQ=MINUTELY;INTERVAL=5', start: '2026-11-23T08:05', zone: 'UTC' } },
  { id: 'every5-berlin', title: 'b', path: 'b.md', status: 'active', taskChecked: false, deepLink: link('b'),
    schedule: { kind: 'recurring', rrule: 'FREQ=MINUTELY;INTERVAL=5', start: '2026-11-23T09:07', zone: 'Europe/Berlin' } },
  ...[3, 11, 19, 23, 31, 47, 52].map((minute) => ({
    id: 'once-' + minute, title: 'o' + minute, path: 'o.md', status: 'active', taskChecked: false,
    deepLink: link('o' + minute), schedule: { kind: 'once', at: BASE + minute * MINUTE, zone: 'UTC' } })),
];
const db = openDatabase(dbFile);
const deliverer = {
  subscriptions: () => ${JSON.stringify(DEVICES)}.map((id) => ({ id })),
  async deliver(delivery) {
    // A push request takes a while: kills land before, during and after it.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
    if (Math.random() < Number(retryRateText)) return { kind: 'retry', reason: 'push service answered 503', retryAfterMs: 5000 };
    appendFileSync(deliveredFile,
      delivery.payload.reminder_id + '|' + Date.parse(delivery.payload.occurrence) + '|' + delivery.subscriptionId + '\\n');
    return { kind: 'sent' };
  },
};
const scheduler = new ReminderScheduler({
  db, clock, timer, source: new InMemoryReminderSource(reminders), deliverer, graceMs: ${GRACE_MS},
});
await scheduler.start();
process.stdout.write('started\\n');
const tick = setInterval(() => process.stdout.write('t ' + clock.now() + '\\n'), 10);
process.on('SIGTERM', async () => {
  clearInterval(tick);
  await scheduler.stop();
  db.close();
  process.exit(0);
});
`;

let childScript: string;
beforeAll(() => {
  const outDir = join(repoRoot, 'node_modules/.cache/cairn-tests');
  mkdirSync(outDir, { recursive: true });
  childScript = join(outDir, `scheduler-child-${process.pid}.mjs`);
  buildSync({
    stdin: { contents: CHILD_SOURCE, resolveDir: repoRoot, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: childScript,
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(childScript, { force: true }));

let dir: { path: string; remove: () => void };
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = tempDir('scheduler-durability');
});
afterEach(() => {
  child?.kill('SIGKILL');
  dir.remove();
});

interface Run {
  /** The child's virtual time as last reported. */
  lastVirtual: number;
  exited: Promise<NodeJS.Signals | null>;
}

function startChild(
  dbFile: string,
  deliveredFile: string,
  virtualStart: number,
  /** Share of sends the fake push service answers 503; 0 for the last, settling run. */
  retryRate = 0.1,
): Promise<Run> {
  const process_ = spawn(
    process.execPath,
    [childScript, dbFile, deliveredFile, String(virtualStart), String(retryRate)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = process_;
  let stderr = '';
  process_.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const run: Run = {
    lastVirtual: virtualStart,
    exited: new Promise((resolve) => process_.on('exit', (_code, signal) => resolve(signal))),
  };
  return new Promise((resolve, reject) => {
    let buffered = '';
    let started = false;
    process_.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'started' && !started) {
          started = true;
          resolve(run);
        } else if (line.startsWith('t ')) run.lastVirtual = Number(line.slice(2));
      }
    });
    process_.on('exit', (code) => {
      if (!started)
        reject(new Error(`scheduler child exited (${code}) before starting: ${stderr}`));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function deliveredCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line !== '') counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

describe('scheduler durability under SIGKILL', () => {
  it('delivers every occurrence once per device (or lists it missed) across kills and restarts', async () => {
    const dbFile = join(dir.path, 'cairn.db');
    const deliveredFile = join(dir.path, 'delivered.log');
    /** Times each key was accepted by "push" while its row was not yet marked sent at a kill. */
    const windowVictims = new Map<string, number>();
    // Downtime after each kill, in virtual minutes: within grace (fires late) or beyond (missed).
    const downtimes = [1, 4, 0.5, 3, 1.5, 6, 1, 2.5, 1];
    let virtualNow = BASE;
    let interruptedClaims = 0;

    for (const downtime of downtimes) {
      const run = await startChild(dbFile, deliveredFile, virtualNow);
      await sleep(120 + Math.random() * 380);
      child!.kill('SIGKILL');
      expect(await run.exited).toBe('SIGKILL');
      // The kill may land up to one report (10 ms, 12 virtual s) after the last one.
      virtualNow = run.lastVirtual + 15_000 + downtime * MINUTE;

      const db = new Database(dbFile, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const delivered = deliveredCounts(deliveredFile);
        const open = db
          .prepare(
            `SELECT reminder_id, occurrence, device_id FROM deliveries WHERE state IN ('claimed', 'retry')`,
          )
          .all() as { reminder_id: string; occurrence: number; device_id: string }[];
        interruptedClaims += open.length;
        for (const row of open) {
          const key = `${row.reminder_id}|${row.occurrence}|${row.device_id}`;
          const accepted = delivered.get(key) ?? 0;
          const counted = 1 + (windowVictims.get(key) ?? 0);
          if (accepted >= counted) windowVictims.set(key, accepted);
        }
      } finally {
        db.close();
      }
    }

    // A last run that ends gracefully, so nothing is left in flight: its push service accepts
    // everything, or a retry asked for in its last moments would still be pending at the end.
    const last = await startChild(dbFile, deliveredFile, virtualNow, 0);
    await sleep(400);
    child!.kill('SIGTERM');
    expect(await last.exited).toBe(null);

    const db = new Database(dbFile, { readonly: true });
    try {
      const delivered = deliveredCounts(deliveredFile);
      const rows = db
        .prepare('SELECT reminder_id, occurrence, device_id, state FROM deliveries')
        .all() as { reminder_id: string; occurrence: number; device_id: string; state: string }[];
      const rowState = new Map(
        rows.map((row) => [`${row.reminder_id}|${row.occurrence}|${row.device_id}`, row.state]),
      );
      const missed = new Set(
        (
          db.prepare('SELECT reminder_id, occurrence FROM missed_occurrences').all() as {
            reminder_id: string;
            occurrence: number;
          }[]
        ).map((row) => `${row.reminder_id}|${row.occurrence}`),
      );
      const highWater = new Map(
        (
          db.prepare('SELECT reminder_id, high_water FROM reminder_plan').all() as {
            reminder_id: string;
            high_water: number;
          }[]
        ).map((row) => [row.reminder_id, row.high_water]),
      );

      // Nothing was sent without a claimed row, and never more often than the window allows.
      for (const [key, count] of delivered) {
        expect(rowState.has(key), `${key} was sent without a delivery row`).toBe(true);
        // A victim's row may be given up on restart (older than grace) instead of resent.
        expect(count, `${key} sent ${count} times`).toBeLessThanOrEqual(
          1 + (windowVictims.get(key) ?? 0),
        );
      }

      // Every occurrence up to each high-water mark reached every device, or is listed missed.
      const expected: string[] = [];
      const everyFive = [
        { id: 'every5-utc', start: '2026-11-23T08:05', zone: 'UTC' },
        { id: 'every5-berlin', start: '2026-11-23T09:07', zone: 'Europe/Berlin' },
      ];
      for (const { id, start, zone } of everyFive) {
        const through = highWater.get(id) ?? BASE;
        for (const at of nextOccurrences(
          { rrule: 'FREQ=MINUTELY;INTERVAL=5', start },
          BASE,
          zone,
          1000,
        )) {
          if (at <= through) expected.push(`${id}|${at}`);
        }
      }
      for (const minute of [3, 11, 19, 23, 31, 47, 52]) {
        const at = BASE + minute * MINUTE;
        if (at <= (highWater.get(`once-${minute}`) ?? BASE)) expected.push(`once-${minute}|${at}`);
      }
      expect(expected.length).toBeGreaterThan(8);
      let deliveredOccurrences = 0;
      for (const occurrence of expected) {
        if (missed.has(occurrence)) continue;
        deliveredOccurrences += 1;
        for (const device of DEVICES) {
          const key = `${occurrence}|${device}`;
          expect(rowState.get(key), `${key} state`).toBe('sent');
          expect(delivered.get(key) ?? 0, `${key} delivered`).toBeGreaterThanOrEqual(1);
        }
      }
      expect(deliveredOccurrences).toBeGreaterThan(3);
      if (process.env.CAIRN_DURABILITY_STATS) {
        console.log({
          expected: expected.length,
          deliveredOccurrences,
          missed: missed.size,
          victims: windowVictims.size,
          interrupted: interruptedClaims,
          rows: rows.length,
        });
      }
    } finally {
      db.close();
    }
  });
});
