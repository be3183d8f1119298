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
 * well-defined points (while it sleeps between passes, when a delivery is handed to the push
 * service with its row claimed, and after the push service accepted it but before the `sent`
 * commit), restarted after short and long downtime, and checked: every occurrence up to each
 * reminder's high-water mark reached each device, or is on the missed list; nothing was sent
 * twice except in the one window no sender can close (accepted by push, killed before the
 * commit), which the test knows exactly: it is where it killed.
 *
 * Nothing depends on wall-clock time or load. The child's clock is virtual and moves only from
 * one timer to the next while the scheduler is idle (`whenIdle`), so a run is a sequence of
 * steps; the push service's 503s and the scheduler's retry jitter come from a seeded generator.
 * Each run is told where to die ("the 3rd accepted send"): the child reports that point, then
 * blocks, and the parent kills it there. The kill schedule is drawn from a fixed seed.
 */
const MINUTE = 60_000;
const BASE = Date.parse('2026-11-23T08:00:00Z');
const GRACE_MS = 2 * MINUTE;
const DEVICES = ['phone', 'tablet'];
const SEED = 22;

/** Where a run may be killed: asleep between passes, a send handed over, a send accepted. */
const KILL_POINTS = ['sleep', 'handed', 'accepted'] as const;
type KillPoint = (typeof KILL_POINTS)[number];

/** mulberry32: small and seeded, so a failing schedule replays exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Reminders spaced wider than the grace window, so no two occurrences of one collapse. */
const CHILD_SOURCE = `
import { appendFileSync, writeSync } from 'node:fs';
import { openDatabase } from './companion/db/open';
import { ReminderScheduler } from './companion/reminders/scheduler';
import { InMemoryReminderSource } from './companion/reminders/reminder-source';

const [dbFile, deliveredFile, virtualStartText, seedText, retryRateText, killPoint, killNthText, endAtText] =
  process.argv.slice(2);
${seededRandom.toString()}
const BASE = ${BASE};
const MINUTE = 60000;
const random = seededRandom(Number(seedText));
const retryRate = Number(retryRateText);
const killNth = Number(killNthText);
const endAt = Number(endAtText);

// Virtual time: it stands still while the scheduler works and jumps to the next timer when
// the scheduler is idle (see drive() below).
let now = Number(virtualStartText);
const clock = { now: () => now };
const timers = new Map();
let nextTimer = 1;
const timer = {
  set: (callback, delayMs) => {
    const id = nextTimer++;
    timers.set(id, { at: now + delayMs, callback });
    return id;
  },
  clear: (id) => timers.delete(id),
};

// A kill point: the run's chosen one reports itself with the virtual time, then blocks until
// the parent's SIGKILL lands, so the process dies exactly there.
const reached = { sleep: 0, handed: 0, accepted: 0 };
function point(kind, key) {
  reached[kind] += 1;
  if (kind !== killPoint || reached[kind] !== killNth) return;
  // Written synchronously: an asynchronous pipe write would wait behind the block forever.
  writeSync(1, 'at ' + kind + ' ' + now + ' ' + (key ?? '-') + '\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

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
    const key = delivery.payload.reminder_id + '|' + Date.parse(delivery.payload.occurrence) + '|' + delivery.subscriptionId;
    point('handed', key);
    if (random() < retryRate) return { kind: 'retry', reason: 'push service answered 503', retryAfterMs: 5000 };
    appendFileSync(deliveredFile, key + '\\n');
    point('accepted', key);
    return { kind: 'sent' };
  },
};
const scheduler = new ReminderScheduler({
  db, clock, timer, random, source: new InMemoryReminderSource(reminders), deliverer, graceMs: ${GRACE_MS},
});

/** Runs the scheduler from one timer to the next until endAt; then says so and waits. */
async function drive() {
  await scheduler.start();
  for (;;) {
    await scheduler.whenIdle();
    let next;
    for (const entry of timers) if (next === undefined || entry[1].at < next[1].at) next = entry;
    if (next === undefined || next[1].at > endAt) break;
    point('sleep');
    timers.delete(next[0]);
    now = Math.max(now, next[1].at);
    next[1].callback();
  }
  writeSync(1, 'idle ' + now + '\\n');
  setInterval(() => {}, 60000);
}
process.on('SIGTERM', async () => {
  await scheduler.stop();
  db.close();
  process.exit(0);
});
void drive();
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

/** Where a run stopped: at its kill point (then blocked, waiting for the kill) or idle at its end. */
interface Stop {
  kind: KillPoint | 'idle';
  /** The child's virtual time there. */
  virtual: number;
  /** The delivery (`reminder|occurrence|device`) at a `handed` or `accepted` point. */
  key?: string;
}

interface Run {
  stopped: Promise<Stop>;
  exited: Promise<NodeJS.Signals | null>;
}

function startChild(
  dbFile: string,
  deliveredFile: string,
  options: {
    virtualStart: number;
    seed: number;
    /** Share of sends the fake push service answers 503; 0 for the last, settling run. */
    retryRate: number;
    /** Dies at the `nth` time it reaches `point`; the last run has none and ends at `endAt`. */
    kill?: { point: KillPoint; nth: number };
    endAt: number;
  },
): Run {
  const process_ = spawn(
    process.execPath,
    [
      childScript,
      dbFile,
      deliveredFile,
      String(options.virtualStart),
      String(options.seed),
      String(options.retryRate),
      options.kill?.point ?? 'none',
      String(options.kill?.nth ?? 0),
      String(options.endAt),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child = process_;
  let stderr = '';
  process_.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    process_.on('exit', (_code, signal) => resolve(signal)),
  );
  const stopped = new Promise<Stop>((resolve, reject) => {
    let buffered = '';
    process_.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        // `at <point> <virtual time> <key or ->`, or `idle <virtual time>`.
        const [kind, virtual, key] = line.startsWith('at ')
          ? line.slice(3).split(' ')
          : line.split(' ');
        if (kind === 'idle' || KILL_POINTS.includes(kind as KillPoint)) {
          resolve({
            kind: kind as Stop['kind'],
            virtual: Number(virtual),
            ...(key === undefined || key === '-' ? {} : { key }),
          });
        }
      }
    });
    process_.on('exit', (code, signal) =>
      reject(new Error(`scheduler child exited (${code ?? signal}) before its stop: ${stderr}`)),
    );
  });
  return { stopped, exited };
}

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
    // The kill schedule: every kind of point in turn, at a seeded nth visit to it.
    const pick = seededRandom(SEED);
    const kills = downtimes.map((_, run) => ({
      point: KILL_POINTS[run % KILL_POINTS.length]!,
      nth: 1 + Math.floor(pick() * 8),
    }));
    let virtualNow = BASE;
    let interruptedClaims = 0;

    for (const [run, downtime] of downtimes.entries()) {
      const kill = kills[run]!;
      const started = startChild(dbFile, deliveredFile, {
        virtualStart: virtualNow,
        seed: SEED * 100 + run,
        retryRate: 0.1,
        kill,
        // Far enough that every kill point is reached long before; idle there would be a bug.
        endAt: virtualNow + 24 * 60 * MINUTE,
      });
      const stop = await started.stopped;
      expect(stop.kind, `run ${run} should stop at its kill point`).toBe(kill.point);
      child!.kill('SIGKILL');
      expect(await started.exited).toBe('SIGKILL');
      virtualNow = stop.virtual + downtime * MINUTE;

      const db = new Database(dbFile, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const open = db
          .prepare(
            `SELECT reminder_id, occurrence, device_id FROM deliveries WHERE state IN ('claimed', 'retry')`,
          )
          .all() as { reminder_id: string; occurrence: number; device_id: string }[];
        interruptedClaims += open.length;
        // Accepted by push while its row is still claimed: it may be sent again after restart.
        // With sends in flight side by side, that can be more than the one the kill landed in.
        const delivered = deliveredCounts(deliveredFile);
        const claimed = open.map((row) => `${row.reminder_id}|${row.occurrence}|${row.device_id}`);
        for (const key of claimed) {
          const accepted = delivered.get(key) ?? 0;
          if (accepted >= 1 + (windowVictims.get(key) ?? 0)) windowVictims.set(key, accepted);
        }
        if (stop.kind !== 'sleep') {
          // Killed mid-send: that delivery's row is claimed, not yet marked sent.
          expect(claimed).toContain(stop.key);
        }
        if (stop.kind === 'accepted') expect(windowVictims.has(stop.key!)).toBe(true);
      } finally {
        db.close();
      }
    }

    // A last run that ends gracefully, so nothing is left in flight: its push service accepts
    // everything, or a retry asked for in its last moments would still be pending at the end.
    const last = startChild(dbFile, deliveredFile, {
      virtualStart: virtualNow,
      seed: SEED * 100 + downtimes.length,
      retryRate: 0,
      endAt: virtualNow + 30 * MINUTE,
    });
    expect((await last.stopped).kind).toBe('idle');
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
