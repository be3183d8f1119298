import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../companion/logging';
import { VaultChangeFeed } from '../../../companion/vault/change-feed';
import { VaultExcludes } from '../../../companion/vault/exclude-settings';
import {
  VaultReminderSource,
  connectVaultReminders,
} from '../../../companion/reminders/vault-reminder-source';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { openDatabase } from '../../../companion/db/open';
import { tempDir } from '../helpers/app';
import { HOUR, ManualTimer, RecordingDeliverer } from './helpers';
import { ManualClock } from '../../fakes/clock';
import { reminderDeepLink } from '../../../shared/reminders/deep-link';

let dir: { path: string; remove: () => void } | undefined;
afterEach(() => {
  dir?.remove();
  dir = undefined;
});

function vaultWith(files: Record<string, string>): string {
  dir = tempDir('vault-reminders');
  const vault = join(dir.path, 'My Vault');
  mkdirSync(vault);
  for (const [path, text] of Object.entries(files)) write(vault, path, text);
  return vault;
}

function write(vault: string, path: string, text: string): void {
  mkdirSync(dirname(join(vault, path)), { recursive: true });
  writeFileSync(join(vault, path), text);
}

const REMINDER_NOTE = `---
id: 5b0e-call-bank
type: reminder
title: Call the bank
due: 2026-11-23T17:00:00+01:00
timezone: Europe/Berlin
repeat: FREQ=WEEKLY;BYDAY=MO
status: active
snoozed_until: 2026-11-23T17:15:00+01:00
---
From [[Meeting 2026-11-22]]
`;

const INLINE_NOTE = `# Tasks

- [ ] Call the bank @remind(2026-11-23 17:00) ^r-7k2p
- [x] Renew passport @remind(2027-01-10 09:00 America/New_York) ^r-q0d4
Water the plants @remind(every monday 09:00) ^r-x81c
- [ ] Call mum @remind(tomorrow 5pm)
- [ ] Broken @remind(2026-13-01 10:00)
\`@remind(2026-11-23 10:00)\` in code is ignored
`;

describe('VaultReminderSource', () => {
  it('reads reminder notes and inline reminders, with deep links, and lists what it will not fire', async () => {
    const vault = vaultWith({
      'Cairn/Reminders/call-the-bank.md': REMINDER_NOTE,
      'Projects/Tasks.md': INLINE_NOTE,
      '.obsidian/ignored.md': '- [ ] hidden @remind(2026-11-23 17:00) ^r-hide',
      'notes/plain.md': '# Nothing to see',
    });
    const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
    await source.load();
    const { reminders, unresolved } = source.all();
    const byId = new Map(reminders.map((reminder) => [reminder.id, reminder]));
    expect([...byId.keys()].sort()).toEqual(['5b0e-call-bank', 'r-7k2p', 'r-q0d4', 'r-x81c']);

    expect(byId.get('5b0e-call-bank')).toEqual({
      id: '5b0e-call-bank',
      title: 'Call the bank',
      path: 'Cairn/Reminders/call-the-bank.md',
      schedule: {
        kind: 'recurring',
        rrule: 'FREQ=WEEKLY;BYDAY=MO',
        start: '2026-11-23T17:00',
        zone: 'Europe/Berlin',
      },
      status: 'active',
      taskChecked: false,
      snoozedUntil: Date.parse('2026-11-23T16:15:00Z'),
      deepLink: 'obsidian://open?vault=My%20Vault&file=Cairn%2FReminders%2Fcall-the-bank.md',
    });
    expect(byId.get('r-7k2p')).toMatchObject({
      title: 'Call the bank',
      line: 3,
      schedule: { kind: 'once', at: Date.parse('2026-11-23T16:00:00Z'), zone: 'Europe/Berlin' },
      taskChecked: false,
      deepLink: 'obsidian://open?vault=My%20Vault&file=Projects%2FTasks.md%23%5Er-7k2p',
    });
    expect(byId.get('r-q0d4')).toMatchObject({
      taskChecked: true,
      schedule: { kind: 'once', at: Date.parse('2027-01-10T14:00:00Z'), zone: 'America/New_York' },
    });
    expect(byId.get('r-x81c')?.schedule.kind).toBe('recurring');

    expect(unresolved.map((entry) => [entry.path, entry.line, entry.title])).toEqual([
      ['Projects/Tasks.md', 6, 'Call mum'],
      ['Projects/Tasks.md', 7, expect.any(String)],
    ]);
    expect(unresolved[0]!.detail).toMatch(/line 6/);
    expect(unresolved[1]!.detail).toMatch(/line 7.*13/);
  });

  it('links a note with parentheses the same way as every other deep link (shared/reminders)', async () => {
    const vault = vaultWith({
      'Errands (home).md': '- [ ] Buy bulbs @remind(2026-11-23 17:00) ^r-bulb\n',
      'Cairn/Reminders/Errands (home).md':
        '---\nid: errands-home\ntype: reminder\ntitle: Errands\ndue: 2026-11-23T17:00\ntimezone: UTC\n---\n',
    });
    const source = new VaultReminderSource({ vault, defaultZone: 'UTC' });
    await source.load();
    const byId = new Map(source.all().reminders.map((reminder) => [reminder.id, reminder]));
    // The push link, the digest, the calendar feed and the phone page all say the same thing:
    // parentheses encoded too, so the link survives inside a Markdown link.
    expect(byId.get('r-bulb')?.deepLink).toBe(
      'obsidian://open?vault=My%20Vault&file=Errands%20%28home%29.md%23%5Er-bulb',
    );
    expect(byId.get('r-bulb')?.deepLink).toBe(
      reminderDeepLink('My Vault', 'Errands (home).md', 'r-bulb'),
    );
    expect(byId.get('errands-home')?.deepLink).toBe(
      'obsidian://open?vault=My%20Vault&file=Cairn%2FReminders%2FErrands%20%28home%29.md',
    );
    const file = new URL(byId.get('r-bulb')!.deepLink).searchParams.get('file');
    expect(file).toBe('Errands (home).md#^r-bulb');
  });

  it('lists a reminder note with bad front matter as unresolved, naming the field', async () => {
    const vault = vaultWith({
      'r.md':
        '---\nid: abc\ntype: reminder\ntitle: Pay rent\ndue: 2026-11-32T09:00\ntimezone: Europe/Berlin\n---\n',
    });
    const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
    await source.load();
    expect(source.all().reminders).toEqual([]);
    expect(source.unresolved()).toEqual([
      {
        id: 'abc',
        title: 'Pay rent',
        path: 'r.md',
        detail: expect.stringMatching(/^due: /),
        problem: 'invalid',
      },
    ]);
  });

  it('answers which ids changed when a file changes, moves or is deleted', async () => {
    const vault = vaultWith({ 'a.md': '- [ ] one @remind(2026-11-23 17:00) ^r-one\n' });
    const source = new VaultReminderSource({ vault, defaultZone: 'UTC' });
    await source.load();
    write(
      vault,
      'a.md',
      '- [ ] one @remind(2026-11-23 18:00) ^r-one\n- [ ] two @remind(2026-11-24 08:00) ^r-two\n',
    );
    expect((await source.refreshFile('a.md')).sort()).toEqual(['r-one', 'r-two']);
    expect(source.get(['r-one'])[0]!.schedule).toMatchObject({
      at: Date.parse('2026-11-23T18:00:00Z'),
    });

    // A move: the new path appears, then the old one is deleted; the id stays the same reminder.
    write(vault, 'moved/a.md', '- [ ] one @remind(2026-11-23 18:00) ^r-one\n');
    await source.refreshFile('moved/a.md');
    rmSync(join(vault, 'a.md'));
    expect(
      (await source.applyChange({ type: 'delete', path: 'a.md', kind: 'markdown' })).sort(),
    ).toEqual(['r-one', 'r-two']);
    expect(source.get(['r-one', 'r-two']).map((r) => r.path)).toEqual(['moved/a.md']);

    // A deleted folder takes its files' reminders along.
    expect(source.removeFile('moved')).toEqual(['r-one']);
    expect(source.all().reminders).toEqual([]);
  });

  it("lets the original win over Cairn's own conflict copy with the same ids", async () => {
    const vault = vaultWith({
      'A.conflict-20261125-034100.md': '- [ ] pay @remind(2026-11-23 19:00) ^r-pay\n',
      'A.md': '- [ ] pay @remind(2026-11-23 17:00) ^r-pay\n',
    });
    const source = new VaultReminderSource({ vault, defaultZone: 'UTC' });
    await source.load();
    expect(source.get(['r-pay']).map((r) => r.path)).toEqual(['A.md']);
  });

  it('lets the original win over a sync conflict copy with the same ids', async () => {
    const vault = vaultWith({
      'Tasks.md': '- [ ] pay @remind(2026-11-23 17:00) ^r-pay\n',
      'Tasks.sync-conflict-20261122-101500-ABCDEFG.md':
        '- [ ] pay @remind(2026-11-23 19:00) ^r-pay\n',
    });
    const source = new VaultReminderSource({ vault, defaultZone: 'UTC' });
    await source.load();
    expect(source.all().reminders.map((r) => r.path)).toEqual(['Tasks.md']);
    source.removeFile('Tasks.md');
    expect(source.get(['r-pay']).map((r) => r.path)).toEqual([
      'Tasks.sync-conflict-20261122-101500-ABCDEFG.md',
    ]);
  });

  it('drives the scheduler: an edited note re-plans only its reminders, and fires', async () => {
    const vault = vaultWith({ 'Inbox.md': '- [ ] call @remind(2026-11-23 12:00) ^r-call\n' });
    const source = new VaultReminderSource({ vault, defaultZone: 'UTC' });
    await source.load();
    const clock = ManualClock.at('2026-11-23T10:00:00Z');
    const timer = new ManualTimer(clock);
    const deliverer = new RecordingDeliverer(clock, ['phone']);
    const db = openDatabase(join(dir!.path, 'cairn.db'));
    const scheduler = new ReminderScheduler({ db, clock, timer, source, deliverer, graceMs: HOUR });
    const feed = new VaultChangeFeed({
      vault,
      db,
      logger: createLogger('silent'),
      excludes: new VaultExcludes([]),
      watch: false,
    });
    try {
      await scheduler.start();
      feed.start();
      await feed.whenIdle();
      const link = connectVaultReminders(feed, source, scheduler, createLogger('silent'));
      expect(feed.subscribers).toEqual(['reminders']);
      write(
        vault,
        'Inbox.md',
        '- [ ] call @remind(2026-11-23 11:00) ^r-call\n- [x] done @remind(2026-11-23 11:00) ^r-done\n',
      );
      await feed.refresh(['Inbox.md']);
      await link.close();
      expect(scheduler.nextFire('r-call')).toBe(Date.parse('2026-11-23T11:00:00Z'));
      expect(feed.subscribers).toEqual([]);
      await timer.advanceTo(Date.parse('2026-11-23T13:00:00Z'), () => scheduler.whenIdle());
      expect(deliverer.lines()).toEqual(['r-call@2026-11-23T11:00:00+00:00→phone']);
    } finally {
      await feed.close();
      await scheduler.stop();
      db.close();
    }
  });
});
