#!/usr/bin/env node
// Benchmark of the companion's reminder scheduler (companion/reminders/) with 10,000 reminders:
//   (a) fire lag (due instant → message handed to the deliverer), p50/p95/max, with real timers
//       and the real clock, for reminders spread out and for a burst due at the same instant,
//       on a database on disk (an fsync per commit) and in RAM (/dev/shm) side by side;
//   (b) memory: heap and RSS growth for 10k scheduled reminders;
//   (c) re-plan after one reminder changed among 10k, against a full re-plan.
//
//   node scripts/bench/scheduler.mjs [--reminders 10000]
//
// The TypeScript is bundled with esbuild into node_modules/.cache/cairn-bench/ first, as
// scripts/bench-embeddings.mjs does, so this measures exactly the code in companion/reminders/.
import { bundleForNode } from '../bundle-for-node.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

// Heap deltas need a forced GC: re-run this script with --expose-gc when it is missing.
if (typeof globalThis.gc !== 'function') {
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}

const { values: args } = parseArgs({
  options: { reminders: { type: 'string', default: '10000' } },
});
const COUNT = Number(args.reminders);
if (!Number.isInteger(COUNT) || COUNT < 100) {
  throw new Error(`--reminders must be an integer ≥ 100, got ${args.reminders}`);
}

const bundle = await bundleForNode('cairn-bench', {
  'scheduler-bench': 'companion/reminders/index.ts',
  'scheduler-bench-db': 'companion/db/open.ts',
});
const { ReminderScheduler, InMemoryReminderSource } = await bundle.load('scheduler-bench');
const { openDatabase } = await bundle.load('scheduler-bench-db');

const HOUR = 3_600_000;
const realClock = { now: () => Date.now() };

function once(id, at, zone = 'Europe/Berlin') {
  return {
    id,
    title: `Reminder ${id}`,
    path: `Reminders/${id}.md`,
    schedule: { kind: 'once', at, zone },
    status: 'active',
    taskChecked: false,
    deepLink: `obsidian://open?vault=Bench&file=Reminders%2F${id}.md`,
  };
}

function weekly(id, start, zone = 'America/New_York') {
  return {
    id,
    title: `Weekly ${id}`,
    path: `Reminders/${id}.md`,
    schedule: { kind: 'recurring', rrule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR', start, zone },
    status: 'active',
    taskChecked: false,
    deepLink: `obsidian://open?vault=Bench&file=Reminders%2F${id}.md`,
  };
}

/**
 * A deliverer that answers `sent` after `latencyMs` and records the lag of each hand-over
 * against the exact due instant (`dueById`; the payload's occurrence is in whole seconds).
 */
function lagDeliverer(devices, latencyMs = 0, dueById = new Map()) {
  const lags = [];
  return {
    lags,
    subscriptions: () => devices.map((id) => ({ id })),
    async deliver(delivery) {
      const due =
        dueById.get(delivery.payload.reminder_id) ?? Date.parse(delivery.payload.occurrence);
      lags.push(Date.now() - due);
      if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
      return { kind: 'sent' };
    },
  };
}

function tempDir(base) {
  const dir = mkdtempSync(join(base, 'cairn-bench-scheduler-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * 10k reminders scheduled: `firing` of them due within the next seconds (spread, or all at one
 * instant), the rest spread over a year. Waits for the firing ones and reports their lag.
 */
async function fireLag({ base, firing, burst, devices, latencyMs }) {
  const { dir, remove } = tempDir(base);
  const db = openDatabase(join(dir, 'cairn.db'));
  const now = Date.now();
  // The rest of the 10k: spread over the coming year, half one-offs, half weekly in New York.
  const background = [];
  for (let i = firing; i < COUNT; i++) {
    background.push(
      i % 2 === 0
        ? once(`r${i}`, now + HOUR + Math.floor((i / COUNT) * 365 * 24 * HOUR))
        : weekly(`r${i}`, '2027-01-04T09:00'),
    );
  }
  const source = new InMemoryReminderSource(background);
  const dueById = new Map();
  const deliverer = lagDeliverer(devices, latencyMs, dueById);
  const scheduler = new ReminderScheduler({
    db,
    clock: realClock,
    source,
    deliverer,
    graceMs: 24 * HOUR,
  });
  await scheduler.start();
  // Then the ones measured arrive, as from the vault watcher: due in 1 to 4 s.
  const start = Date.now() + 1000;
  const ids = [];
  for (let i = 0; i < firing; i++) {
    const at = burst ? start : start + Math.floor((i * 3000) / firing);
    source.put(once(`r${i}`, at));
    dueById.set(`r${i}`, at);
    ids.push(`r${i}`);
  }
  await scheduler.replan(ids);
  const expected = firing * devices.length;
  const deadline = Date.now() + 120_000;
  while (deliverer.lags.length < expected && Date.now() < deadline) await sleep(50);
  await scheduler.stop();
  db.close();
  remove();
  if (deliverer.lags.length < expected) {
    throw new Error(`only ${deliverer.lags.length} of ${expected} deliveries within 2 minutes`);
  }
  return deliverer.lags;
}

async function memory() {
  const { dir, remove } = tempDir(existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  const db = openDatabase(join(dir, 'cairn.db'));
  const now = Date.now();
  const reminders = Array.from({ length: COUNT }, (_, i) =>
    i % 2 === 0 ? once(`r${i}`, now + HOUR + i * 60_000) : weekly(`r${i}`, '2027-01-04T09:00'),
  );
  globalThis.gc();
  globalThis.gc();
  const before = process.memoryUsage();
  const scheduler = new ReminderScheduler({
    db,
    clock: realClock,
    source: new InMemoryReminderSource(reminders),
    deliverer: lagDeliverer(['phone']),
    graceMs: 24 * HOUR,
  });
  const startedAt = performance.now();
  await scheduler.start();
  const startMs = performance.now() - startedAt;
  globalThis.gc();
  globalThis.gc();
  const after = process.memoryUsage();

  // Re-plan: one reminder edited (moved), the indexer calls replan([id]).
  const single = [];
  const mutable = reminders.slice();
  const inMemory = new InMemoryReminderSource(mutable);
  await scheduler.stop();
  const scheduler2 = new ReminderScheduler({
    db,
    clock: realClock,
    source: inMemory,
    deliverer: lagDeliverer(['phone']),
    graceMs: 24 * HOUR,
  });
  await scheduler2.start();
  for (let round = 0; round < 200; round++) {
    const id = `r${(round * 37) % COUNT}`;
    inMemory.put(once(id, now + 2 * HOUR + round * 1000));
    const t = performance.now();
    await scheduler2.replan([id]);
    single.push(performance.now() - t);
  }
  // A full re-plan (after a rescan) with nothing changed, then with every reminder changed.
  const full = [];
  for (let round = 0; round < 5; round++) {
    const t = performance.now();
    await scheduler2.replan();
    full.push(performance.now() - t);
  }
  const allChanged = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < COUNT; i++) {
      inMemory.put({ ...mutable[i], title: `${mutable[i].title} (${round})` });
    }
    const t = performance.now();
    await scheduler2.replan();
    allChanged.push(performance.now() - t);
  }
  await scheduler2.stop();
  db.close();
  remove();
  return {
    allChanged,
    heapMb: (after.heapUsed - before.heapUsed) / 1e6,
    rssMb: (after.rss - before.rss) / 1e6,
    startMs,
    single,
    full,
  };
}

const fmt = (ms) => (Number.isFinite(ms) ? `${ms.toFixed(ms < 10 ? 2 : 0)} ms` : 'n/a');
const row = (cells, widths) => cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ');

console.log(
  `Reminder scheduler, ${COUNT.toLocaleString('en')} reminders scheduled (Node ${process.version})\n`,
);

const disk = tmpdir();
const ram = existsSync('/dev/shm') ? '/dev/shm' : undefined;
const scenarios = [
  { name: '500 due over 3 s, 1 device', firing: 500, burst: false, devices: ['phone'] },
  { name: '500 due over 3 s, 2 devices', firing: 500, burst: false, devices: ['phone', 'tablet'] },
  {
    name: '1,000 due at one instant, 2 devices',
    firing: 1000,
    burst: true,
    devices: ['phone', 'tablet'],
  },
  {
    name: '1,000 at one instant, 2 devices, push 50 ms',
    firing: 1000,
    burst: true,
    devices: ['phone', 'tablet'],
    latencyMs: 50,
  },
];
const widths = [44, 10, 10, 10, 10, 10];
console.log('(a) fire lag: due instant → handed to push');
console.log(row(['scenario', 'database', 'p50', 'p95', 'max', 'sends'], widths));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const scenario of scenarios) {
  for (const [label, base] of [['disk', disk], ...(ram ? [['RAM', ram]] : [])]) {
    const lags = await fireLag({ ...scenario, base, latencyMs: scenario.latencyMs ?? 0 });
    console.log(
      row(
        [
          scenario.name,
          label,
          fmt(percentile(lags, 50)),
          fmt(percentile(lags, 95)),
          fmt(Math.max(...lags)),
          lags.length,
        ],
        widths,
      ),
    );
  }
}

const mem = await memory();
console.log(
  `\n(b) memory for ${COUNT.toLocaleString('en')} reminders (half one-off, half weekly in New York)`,
);
console.log(row(['heap growth', 'RSS growth', 'start (load + plan)'], [14, 14, 20]));
console.log(
  row(
    [`${mem.heapMb.toFixed(1)} MB`, `${mem.rssMb.toFixed(1)} MB`, fmt(mem.startMs)],
    [14, 14, 20],
  ),
);

console.log(`\n(c) re-plan among ${COUNT.toLocaleString('en')} reminders`);
const w3 = [38, 10, 10, 12];
console.log(row(['', 'median', 'p95', 'vs. full'], w3));
const singleMedian = percentile(mem.single, 50);
const fullMedian = percentile(mem.full, 50);
console.log(
  row(
    [
      'one reminder changed: replan([id])',
      fmt(singleMedian),
      fmt(percentile(mem.single, 95)),
      `1/${Math.round(fullMedian / singleMedian)}`,
    ],
    w3,
  ),
);
console.log(
  row(
    ['everything, nothing changed: replan()', fmt(fullMedian), fmt(percentile(mem.full, 95)), '1'],
    w3,
  ),
);
const changedMedian = percentile(mem.allChanged, 50);
console.log(
  row(
    [
      'everything, all changed: replan()',
      fmt(changedMedian),
      fmt(Math.max(...mem.allChanged)),
      `${(changedMedian / fullMedian).toFixed(0)}×`,
    ],
    w3,
  ),
);
