#!/usr/bin/env node
// Benchmark of docs/memory-digest-calendar.md's generated documents, on generated data:
//   digest   buildDigest (shared/digest) for one ISO week over N notes and N reminders;
//   feed     buildIcsFeed (shared/calendar) over N reminders (30% recurring, 3 zones, the
//            inline `every` rules anchored in 2000 that take the history-window path) and
//            N/10 Full Calendar notes; size of the feed;
//   week     buildCalendarWeek for one week (the /api/v1/calendar/week answer).
// Each is timed at 1k and at N (default 10k) in the same process, median of 5 runs after a
// warm-up, and the table shows the N/1k ratio (10 = linear).
//
//   node scripts/bench/calendar-digest.mjs [--n 10000]
import { bundleForNode } from '../bundle-for-node.mjs';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { n: { type: 'string', default: '10000' } } });
const N = Number(args.n);
if (!Number.isInteger(N) || N < 1000)
  throw new Error(`--n must be an integer ≥ 1000, got ${args.n}`);

const bundle = await bundleForNode('cairn-bench', {
  'calendar-bench': 'shared/calendar/index.ts',
  'digest-bench': 'shared/digest/index.ts',
});
const calendar = await bundle.load('calendar-bench');
const digest = await bundle.load('digest-bench');

const NOW = Date.parse('2026-11-30T07:30:00Z');
const WEEK = calendar.parseIsoWeek('2026-W48');
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata'];
const DAY = 86_400_000;

/** A small deterministic generator, so runs compare. */
function random(seed) {
  let state = seed >>> 0;
  return () => (state = (state * 1_664_525 + 1_013_904_223) >>> 0) / 2 ** 32;
}

function data(count) {
  const next = random(count);
  const notes = [];
  for (let index = 0; index < count; index++) {
    const created = NOW - Math.floor(next() * 60 * DAY);
    notes.push({
      path: `Folder ${index % 50}/Note ${index}.md`,
      title: `Note ${index}`,
      created: next() < 0.2 ? null : created,
      modified: created + Math.floor(next() * 20 * DAY),
    });
  }
  const reminders = [];
  for (let index = 0; index < count; index++) {
    const zone = ZONES[index % ZONES.length];
    const kind = next();
    const base = {
      id: `r-${index.toString(36)}`,
      title: `Reminder ${index}, with a comma; and more text to fold in the feed`,
      path: `Folder ${index % 50}/Note ${index}.md`,
      line: 3,
      status: next() < 0.1 ? 'done' : 'active',
      taskChecked: false,
      deepLink: `obsidian://open?vault=Bench&file=Folder%20${index % 50}%2FNote%20${index}.md%23%5Er-${index.toString(36)}`,
    };
    if (kind < 0.7) {
      reminders.push({
        ...base,
        schedule: { kind: 'once', at: NOW + Math.floor((next() - 0.5) * 30 * DAY), zone },
      });
    } else if (kind < 0.85) {
      reminders.push({
        ...base,
        schedule: {
          kind: 'recurring',
          rrule: 'FREQ=WEEKLY;BYDAY=MO,TH',
          start: '2026-01-05T09:30',
          zone,
        },
      });
    } else {
      reminders.push({
        ...base,
        schedule: {
          kind: 'recurring',
          rrule: 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0',
          start: '2000-01-03T00:00',
          zone,
        },
      });
    }
  }
  const events = [];
  for (let index = 0; index < count / 10; index++) {
    events.push({
      id: `event-${index}`,
      title: `Event ${index}`,
      path: `Calendar/Event ${index}.md`,
      allDay: index % 4 === 0,
      zone: 'Europe/Berlin',
      repeat:
        index % 5 === 0
          ? { kind: 'weekly', days: [0, 2], startRecur: '2026-10-01', endRecur: null }
          : {
              kind: 'single',
              date: `2026-11-${String(10 + (index % 19)).padStart(2, '0')}`,
              endDate: null,
            },
      startTime: index % 4 === 0 ? null : '14:00',
      endTime: index % 4 === 0 ? null : '15:30',
    });
  }
  return { notes, reminders, events };
}

function median(run, times = 5) {
  run();
  const samples = [];
  let result;
  for (let index = 0; index < times; index++) {
    const started = performance.now();
    result = run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)], result };
}

const rows = [];
const measured = {};
for (const count of [1000, N]) {
  const { notes, reminders, events } = data(count);
  const d = median(() =>
    digest.buildDigest({
      week: WEEK,
      zone: 'Europe/Berlin',
      now: NOW,
      notes,
      reminders,
      missed: [],
    }),
  );
  const f = median(() =>
    calendar.buildIcsFeed({
      reminders,
      events,
      now: NOW,
      vaultName: 'Bench',
      calendarName: 'Cairn: Bench',
    }),
  );
  const w = median(() =>
    calendar.buildCalendarWeek({ week: WEEK, zone: 'Europe/Berlin', reminders, events }),
  );
  measured[count] = { digest: d.ms, feed: f.ms, week: w.ms };
  rows.push({
    'notes / reminders': count,
    'digest ms': d.ms.toFixed(1),
    'digest KB': (d.result.text.length / 1024).toFixed(0),
    'feed ms': f.ms.toFixed(1),
    'feed MB': (Buffer.byteLength(f.result) / 1024 / 1024).toFixed(2),
    'week ms': w.ms.toFixed(1),
  });
}
rows.push({
  'notes / reminders': `ratio ${N}/1000`,
  'digest ms': (measured[N].digest / measured[1000].digest).toFixed(1),
  'digest KB': '',
  'feed ms': (measured[N].feed / measured[1000].feed).toFixed(1),
  'feed MB': '',
  'week ms': (measured[N].week / measured[1000].week).toFixed(1),
});
console.log(`calendar-digest: median of 5 runs, Node ${process.version}`);
console.table(rows);
