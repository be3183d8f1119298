import { beforeEach, describe, expect, it } from 'vitest';
import { VaultReminders } from '../../../../plugin/reminders/stores/vault-reminders';
import { ChatEngine } from '../../../../shared/chat/chat-engine';
import type { ChatEvent } from '../../../../shared/protocol/chat';
import { ManualClock } from '../../../fakes/clock';
import { FakeVault } from '../../../shared/chat/fake-chat-ports';
import { countingBytes, MemoryVaultFiles } from '../../chat/memory-vault-files';

const ZONE = 'Europe/Berlin';
let clock: ManualClock;
let files: MemoryVaultFiles;
let reminders: VaultReminders;

beforeEach(() => {
  clock = ManualClock.at('2026-11-22T09:30:00Z'); // Sunday 10:30 in Berlin
  files = new MemoryVaultFiles();
  reminders = new VaultReminders({
    files,
    clock,
    zone: () => ZONE,
    remindersFolder: () => 'Reminders',
    randomBytes: countingBytes(),
  });
});

describe('VaultReminders', () => {
  it('creates a docs/vault-format.md reminder note and reads it back as the protocol reminder', async () => {
    const created = await reminders.create({
      title: 'Water the plants',
      due: '2026-11-23T09:00',
      timezone: ZONE,
      repeat: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    });
    expect(created).toMatchObject({
      title: 'Water the plants',
      due: '2026-11-23T09:00:00+01:00',
      timezone: ZONE,
      repeat: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      path: 'Reminders/water-the-plants.md',
      status: 'active',
      next_fire: '2026-11-23T09:00:00+01:00',
    });
    const text = files.files.get('Reminders/water-the-plants.md')!;
    expect(text).toMatch(
      /^---\nid: [0-9a-f-]{36}\ntype: reminder\ntitle: Water the plants\ndue: 2026-11-23T09:00:00\+01:00\ntimezone: Europe\/Berlin\nrepeat: /,
    );
    expect(await reminders.get(created.id)).toEqual(created);
  });

  it('lists by status and by whole local days, soonest first, skipping notes that do not read', async () => {
    await reminders.create({ title: 'Pay rent', due: '2026-12-01T09:00', timezone: ZONE });
    await reminders.create({ title: 'Call the bank', due: '2026-11-23T08:00', timezone: ZONE });
    // 23:30 on the 29th (22:30Z) still falls on the range's last local day.
    await reminders.create({ title: 'Late', due: '2026-11-29T23:30', timezone: ZONE });
    files.files.set(
      'Reminders/broken.md',
      '---\ntype: reminder\ntitle: Broken\ndue: someday\n---\n',
    );
    const week = await reminders.list({ from: '2026-11-22', to: '2026-11-29' });
    expect(week.map((r) => r.title)).toEqual(['Call the bank', 'Late']);
    const all = await reminders.list({});
    expect(all.map((r) => r.title)).toEqual(['Call the bank', 'Late', 'Pay rent']);
    expect(await reminders.list({ status: 'done' })).toEqual([]);
  });

  it('snoozes and completes by changing only their keys; restore puts them back', async () => {
    const created = await reminders.create({
      title: 'Call the bank',
      due: '2026-11-22T11:00',
      timezone: ZONE,
    });
    const path = created.path;
    files.files.set(path, files.files.get(path)!.replace('Created from', 'My words. Created from'));
    const snoozed = await reminders.snooze(created.id, 60);
    expect(snoozed.snoozed_until).toBe('2026-11-22T11:30:00+01:00');
    expect(snoozed.next_fire).toBe('2026-11-22T11:30:00+01:00');
    expect(files.files.get(path)).toContain('snoozed_until: 2026-11-22T11:30:00+01:00');
    const done = await reminders.complete(created.id);
    expect(done).toMatchObject({ status: 'done', next_fire: null });
    await reminders.restore(created);
    const back = await reminders.get(created.id);
    expect(back).toMatchObject({ status: 'active', snoozed_until: null });
    expect(files.files.get(path)).not.toContain('snoozed_until');
    expect(files.files.get(path)).toContain('My words. Created from the Cairn chat.');
    await reminders.delete(created.id);
    expect(files.trashed).toEqual([path]);
    await expect(reminders.complete(created.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a reminder the note model refuses, naming the field', async () => {
    await expect(
      reminders.create({ title: 'x', due: '2026-11-23T08:00', timezone: 'Mars/Base' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'timezone' });
    expect(files.files.size).toBe(0);
  });

  it('serves the chat engine: create, list, snooze by name, complete, undo', async () => {
    const other = new FakeVault(clock);
    const engine = new ChatEngine({
      clock,
      zone: () => ZONE,
      notes: other,
      reminderReader: reminders,
      reminderWriter: reminders,
      searcher: other,
      answerer: other,
    });
    const run = async (message: string) => {
      const events: ChatEvent[] = [];
      for await (const event of engine.send(message)) events.push(event);
      return events;
    };
    const text = (events: ChatEvent[]) =>
      events.map((e) => (e.type === 'token' ? e.text : '')).join('');

    await run('remind me next Monday at 8 to call the bank');
    expect(text(await run("what's due this week?"))).toBe(
      '1 reminder from 2026-11-22 to 2026-11-29:\n- Call the bank: Mon 23 Nov 2026, 08:00',
    );
    expect(text(await run('snooze the bank reminder for an hour'))).toBe(
      'Snoozed "Call the bank" until Sun 22 Nov 2026, 11:30.',
    );
    const completed = await run('mark call the bank as done');
    expect(text(completed)).toBe('Marked "Call the bank" as done.');
    const tool = completed.find((e) => e.type === 'tool');
    const undo =
      tool?.type === 'tool' ? (tool.result as { data: { undo: never } }).data.undo : undefined;
    expect(await engine.undo(undo!)).toMatchObject({ success: true });
    expect((await reminders.list({}))[0]).toMatchObject({ status: 'active' });
  });
});

describe('a reminder about a memory, unpaired (plugin chat → vault)', () => {
  it('"remind me about the pizza place …" writes a note linking the memory’s line', async () => {
    const { VaultMemories } = await import('../../../../plugin/chat/vault-memories');
    const memories = new VaultMemories({ files, clock, zone: () => ZONE });
    const pizza = await memories.remember('Great pizza at Mario’s on Main St');
    const other = new FakeVault(clock);
    const engine = new ChatEngine({
      clock,
      zone: () => ZONE,
      notes: other,
      reminderReader: reminders,
      reminderWriter: reminders,
      searcher: other,
      answerer: other,
      memories,
    });
    const events: ChatEvent[] = [];
    for await (const event of engine.send('remind me about the pizza place on Friday at 6pm')) {
      events.push(event);
    }
    const tool = events.find((event) => event.type === 'tool');
    expect(tool).toMatchObject({ name: 'memory_to_reminder', result: { success: true } });
    const note = files.files.get('Reminders/the-pizza-place.md')!;
    expect(note).toContain('title: The pizza place');
    expect(note).toContain(`From a memory: [[Cairn/Memory#^${pizza.id}]]`);
    expect(note).toContain('> Great pizza at Mario’s on Main St');
    expect(note).not.toContain('Created from the Cairn chat.');
  });
});
