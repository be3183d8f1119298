import { describe, expect, it } from 'vitest';
import { LocalReminderScheduler, firedKey } from '../../../plugin/reminders/local-scheduler';
import type {
  FiredReminderStore,
  SchedulerTimers,
} from '../../../plugin/reminders/local-scheduler';
import { readFileReminders } from '../../../plugin/reminders/vault-reminder-entries';
import type { VaultReminderEntry } from '../../../plugin/reminders/vault-reminder-entries';
import { ManualClock } from '../../fakes/clock';

const ZONE = 'Europe/Berlin';
const HOUR = 60 * 60 * 1000;

class ManualTimers implements SchedulerTimers {
  pending = new Map<number, { callback: () => void; at: number }>();
  private nextHandle = 1;
  constructor(private readonly clock: ManualClock) {}
  set(callback: () => void, delayMs: number): number {
    const handle = this.nextHandle++;
    this.pending.set(handle, { callback, at: this.clock.now() + delayMs });
    return handle;
  }
  clear(handle: number): void {
    this.pending.delete(handle);
  }
  /** Moves the clock to `iso` and runs every timer due by then. */
  runUntil(iso: string): void {
    const target = Date.parse(iso);
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, timer]) => timer.at <= target)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.pending.delete(due[0]);
      this.clock.set(new Date(Math.max(due[1].at, this.clock.now())).toISOString());
      due[1].callback();
    }
    this.clock.set(iso);
  }
}

class MemoryStore implements FiredReminderStore {
  constructor(public keys: readonly string[] = []) {}
  saves = 0;
  load(): Promise<readonly string[]> {
    return Promise.resolve(this.keys);
  }
  save(keys: readonly string[]): Promise<void> {
    this.keys = [...keys];
    this.saves++;
    return Promise.resolve();
  }
}

function entriesOf(path: string, text: string): VaultReminderEntry[] {
  return readFileReminders(path, text, { zone: ZONE }).entries;
}

function setUp(now: string, options: { paired?: boolean; store?: MemoryStore } = {}) {
  const clock = ManualClock.at(now);
  const timers = new ManualTimers(clock);
  const store = options.store ?? new MemoryStore();
  const fired: Array<{ title: string; at: string }> = [];
  let paired = options.paired ?? false;
  const scheduler = new LocalReminderScheduler({
    clock,
    timers,
    store,
    notifier: {
      notify: (entry, occurrence) =>
        fired.push({ title: entry.title, at: new Date(occurrence).toISOString() }),
    },
    isPaired: () => paired,
  });
  return {
    clock,
    timers,
    store,
    fired,
    scheduler,
    setPaired: (value: boolean) => (paired = value),
  };
}

const NOTE = [
  '- [ ] Call the bank @remind(2026-11-23 17:00) ^r-bank',
  '- [x] Already done @remind(2026-11-23 12:00) ^r-done',
  'Water plants @remind(every day 08:00) ^r-h2o',
].join('\n');

describe('LocalReminderScheduler', () => {
  it('sleeps until the next due instant (at most an hour) and fires once, not checked tasks', async () => {
    const { scheduler, timers, fired } = setUp('2026-11-23T10:00:00Z');
    await scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    // Water plants 08:00 Berlin = 07:00Z, three hours ago: inside the grace window, fires now.
    expect(fired).toEqual([{ title: 'Water plants', at: '2026-11-23T07:00:00.000Z' }]);
    expect(timers.pending.size).toBe(1);
    const [timer] = timers.pending.values();
    expect(timer!.at - Date.parse('2026-11-23T10:00:00Z')).toBe(HOUR);
    timers.runUntil('2026-11-23T16:05:00Z');
    expect(fired.map((item) => item.title)).toEqual(['Water plants', 'Call the bank']);
    expect(fired[1]?.at).toBe('2026-11-23T16:00:00.000Z');
    timers.runUntil('2026-11-24T07:30:00Z');
    expect(fired.map((item) => item.at)).toEqual([
      '2026-11-23T07:00:00.000Z',
      '2026-11-23T16:00:00.000Z',
      '2026-11-24T07:00:00.000Z',
    ]);
    scheduler.stop();
    expect(timers.pending.size).toBe(0);
  });

  it('does not fire twice after a restart (the fired set is persisted)', async () => {
    const first = setUp('2026-11-23T16:30:00Z');
    await first.scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    expect(first.fired).toHaveLength(2);
    first.scheduler.stop();
    const second = setUp('2026-11-23T16:40:00Z', { store: new MemoryStore(first.store.keys) });
    await second.scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    expect(second.fired).toEqual([]);
    second.scheduler.stop();
  });

  it('catches up: younger than 24 h fires, older one-offs are listed as missed', async () => {
    const text = 'Old @remind(2026-11-20 09:00) ^r-old\nRecent @remind(2026-11-22 20:00) ^r-new';
    const { scheduler, fired } = setUp('2026-11-23T10:00:00Z');
    await scheduler.start([['A.md', entriesOf('A.md', text)]]);
    expect(fired.map((item) => item.title)).toEqual(['Recent']);
    expect(scheduler.missed().map((item) => item.entry.title)).toEqual(['Old']);
    scheduler.stop();
  });

  it('fires a burst of one recurring reminder once, for the latest occurrence', async () => {
    const text = 'Stretch @remind(every hour) ^r-str';
    const { scheduler, fired, timers } = setUp('2026-11-23T10:00:30Z');
    await scheduler.start([['A.md', entriesOf('A.md', text)]]);
    expect(fired).toHaveLength(1);
    // The laptop sleeps five hours: one notification on wake, not five.
    timers.pending.clear();
    timers.runUntil('2026-11-23T15:00:10Z');
    scheduler.tick();
    expect(fired).toHaveLength(2);
    expect(fired[1]?.at).toBe('2026-11-23T15:00:00.000Z');
    scheduler.stop();
  });

  it('records but does not notify while paired, and does not replay after unpairing', async () => {
    const { scheduler, fired, setPaired, timers } = setUp('2026-11-23T10:00:00Z', {
      paired: true,
    });
    await scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    timers.runUntil('2026-11-23T16:30:00Z');
    expect(fired).toEqual([]);
    setPaired(false);
    scheduler.tick();
    expect(fired).toEqual([]);
    scheduler.stop();
  });

  it('re-plans when a file changes: a checked task stops, a new line fires', async () => {
    const { scheduler, fired, timers } = setUp('2026-11-23T10:00:00Z');
    await scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    scheduler.setFile('Today.md', entriesOf('Today.md', NOTE.replace('- [ ] Call', '- [x] Call')));
    scheduler.setFile('New.md', entriesOf('New.md', 'Soon @remind(2026-11-23 12:00) ^r-soon'));
    timers.runUntil('2026-11-23T17:00:00Z');
    expect(fired.map((item) => item.title)).toEqual(['Water plants', 'Soon']);
    scheduler.removeFile('New.md');
    expect(scheduler.entries().some((entry) => entry.path === 'New.md')).toBe(false);
    scheduler.stop();
  });

  it('fires reminder notes and honours their status and snooze', async () => {
    const note = (status: string, extra = '') =>
      `---\nid: n1\ntype: reminder\ntitle: Pay rent\ndue: 2026-11-23T12:00:00+01:00\ntimezone: Europe/Berlin\nstatus: ${status}\n${extra}---\nbody\n`;
    const active = setUp('2026-11-23T10:00:00Z');
    await active.scheduler.start([['R.md', entriesOf('R.md', note('active'))]]);
    active.timers.runUntil('2026-11-23T11:01:00Z');
    expect(active.fired.map((item) => item.title)).toEqual(['Pay rent']);
    active.scheduler.stop();

    const done = setUp('2026-11-23T10:00:00Z');
    await done.scheduler.start([['R.md', entriesOf('R.md', note('done'))]]);
    done.timers.runUntil('2026-11-23T12:00:00Z');
    expect(done.fired).toEqual([]);
    done.scheduler.stop();

    const snoozed = setUp('2026-11-23T10:00:00Z');
    const text = note('active', 'snoozed_until: 2026-11-23T13:00:00+01:00\n');
    await snoozed.scheduler.start([['R.md', entriesOf('R.md', text)]]);
    snoozed.timers.runUntil('2026-11-23T11:30:00Z');
    expect(snoozed.fired).toEqual([]);
    snoozed.timers.runUntil('2026-11-23T12:00:00Z');
    expect(snoozed.fired.map((item) => item.at)).toEqual(['2026-11-23T12:00:00.000Z']);
    snoozed.scheduler.stop();
  });

  it('survives a store that cannot be read and a notifier that throws', async () => {
    const clock = ManualClock.at('2026-11-23T16:30:00Z');
    const errors: string[] = [];
    const scheduler = new LocalReminderScheduler({
      clock,
      timers: new ManualTimers(clock),
      store: {
        load: () => Promise.reject(new Error('disk gone')),
        save: () => Promise.reject(new Error('read-only')),
      },
      notifier: {
        notify: () => {
          throw new Error('no notifications');
        },
      },
      isPaired: () => false,
      onError: (message) => errors.push(message),
    });
    await scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    await Promise.resolve();
    expect(errors[0]).toContain('disk gone');
    expect(errors.some((message) => message.includes('no notifications'))).toBe(true);
    expect(errors.some((message) => message.includes('read-only'))).toBe(true);
    scheduler.stop();
  });

  it('lists upcoming reminders soonest first', async () => {
    const { scheduler } = setUp('2026-11-23T10:00:00Z');
    await scheduler.start([['Today.md', entriesOf('Today.md', NOTE)]]);
    expect(scheduler.upcoming().map((item) => item.entry.title)).toEqual([
      'Call the bank',
      'Water plants',
    ]);
    expect(firedKey(scheduler.upcoming()[0]!.entry, 5)).toBe('r-bank@5');
    scheduler.stop();
  });
});

describe('readFileReminders', () => {
  it('names the file and line of broken front matter and keeps reading the body', () => {
    const text = '---\ntitle: [unclosed\n---\nCall @remind(2026-11-24 09:00) ^r-a\n';
    const read = readFileReminders('Broken.md', text, { zone: ZONE });
    expect(read.problems[0]).toMatch(/^Broken\.md line \d+: front matter: /);
    expect(read.entries.map((entry) => entry.title)).toEqual(['Call']);
  });

  it('reports a reminder note with a bad due by field', () => {
    const text = '---\nid: x\ntype: reminder\ntitle: T\ndue: 2026-11-32T17:00\n---\n';
    const read = readFileReminders('R.md', text, { zone: ZONE });
    expect(read.entries).toEqual([]);
    expect(read.problems.join('\n')).toContain('R.md: due:');
  });

  it('keeps the first of two tokens on a line and reports the second', () => {
    const read = readFileReminders(
      'T.md',
      'x @remind(2026-11-24 09:00) @remind(2026-11-25 09:00)',
      {
        zone: ZONE,
      },
    );
    expect(read.entries).toHaveLength(1);
    expect(read.problems).toHaveLength(1);
  });

  it('reports every token as invalid under an unknown vault zone without throwing', () => {
    const read = readFileReminders('T.md', 'x @remind(2026-11-24 09:00)', { zone: 'Not/AZone' });
    expect(read.entries).toEqual([]);
    expect(read.problems[0]).toContain('T.md:');
  });
});
