import { afterEach, describe, expect, it } from 'vitest';
import { entryHeadings, taskWorld } from './helpers';
import type { TaskWorld } from './helpers';

/*
 * docs/tasks.md: a once task, a cron task and an RRULE task run on the durable scheduler with a
 * virtual clock across the spring-forward and fall-back weeks of Europe/Berlin, against a real
 * indexed vault; every output note and every push is checked.
 */

let world: TaskWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ONCE_FILE = `---
id: visa-once
type: task
schedule: 2026-03-29T02:30
timezone: Europe/Berlin
action: ask
question: What do I need for the visa appointment?
deliver: [note, push]
---
`;

const RRULE_FILE = `---
id: house-weekend
type: task
schedule: RRULE:FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=9;BYMINUTE=0
timezone: Europe/Berlin
action: ask
question: What will the new roof be?
deliver: [note]
---
`;

describe('tasks on a virtual clock', () => {
  it('runs once, cron and RRULE tasks through the spring-forward week, each slot once', async () => {
    world = await taskWorld('2026-03-26T12:00:00Z', {
      'Cairn/Tasks/Visa.md': ONCE_FILE,
      'Cairn/Tasks/House weekend.md': RRULE_FILE,
    });
    const invoices = await world.feature.service.create({
      name: 'Invoices',
      schedule: '30 2 * * SUN',
      action: 'search',
      query: 'invoice',
      tag: 'invoice',
      deliver: ['note', 'push'],
    });
    expect(invoices.path).toBe('Cairn/Tasks/Invoices.md');
    const before = Object.fromEntries(
      world.feature.service.list().tasks.map((task) => [task.name, task.next_run]),
    );
    expect(before).toEqual({
      // 02:30 does not exist on 29 March in Berlin: the once time moves on by the gap (as
      // reminders do); cron's fixed-time rule runs at the first valid minute after the gap.
      Visa: '2026-03-29T03:30:00+02:00',
      Invoices: '2026-03-29T03:00:00+02:00',
      'House weekend': '2026-03-28T09:00:00+01:00',
    });

    await world.advanceTo('2026-03-30T00:00:00Z');

    const visa = world.read('Cairn/Tasks/Visa (runs).md');
    expect(entryHeadings(visa)).toEqual(['## 2026-03-29 03:30 (Europe/Berlin)']);
    expect(visa).toContain('<!-- cairn-task-run 2026-03-29T03:30:00+02:00 -->');
    expect(visa).toMatch(/passport, two photos and the printed form/);
    expect(visa).toContain(
      '“For the visa appointment bring the passport, two photos and the printed form.” [1]',
    );
    expect(visa).toContain('Sources:\n1. [[Travel/Visa rules]] › Visa rules, line 3');

    const invoiceNote = world.read('Cairn/Tasks/Invoices (runs).md');
    expect(entryHeadings(invoiceNote)).toEqual(['## 2026-03-29 03:00 (Europe/Berlin)']);
    expect(invoiceNote).toContain('1 note match "invoice":');
    expect(invoiceNote).toContain('- [[Journal/2026-03-20]]');
    expect(invoiceNote).not.toContain('Projects/House');

    const house = world.read('Cairn/Tasks/House weekend (runs).md');
    // Newest first; 09:00 local on both days, CET then CEST.
    expect(entryHeadings(house)).toEqual([
      '## 2026-03-29 09:00 (Europe/Berlin)',
      '## 2026-03-28 09:00 (Europe/Berlin)',
    ]);
    expect(house).toContain('<!-- cairn-task-run 2026-03-28T09:00:00+01:00 -->');
    expect(house).toContain('<!-- cairn-task-run 2026-03-29T09:00:00+02:00 -->');
    expect(house).toMatch(/slate tiles from the quarry in Wales/);
    expect(house).toContain('[[Projects/House|House project]] › Roof, line');

    // Pushes: the two tasks that deliver push, once each, at their slot, opening the note.
    expect(
      world.push.sent.map((sent) => ({
        at: new Date(sent.at).toISOString(),
        title: sent.delivery.payload.title,
        body: sent.delivery.payload.body,
        occurrence: sent.occurrence,
        topic: sent.delivery.topic,
      })),
    ).toEqual([
      {
        at: '2026-03-29T01:00:00.000Z',
        title: 'Invoices',
        body: '1 note match "invoice":',
        occurrence: '2026-03-29T03:00:00+02:00',
        topic: `task-${invoices.id}`,
      },
      {
        at: '2026-03-29T01:30:00.000Z',
        title: 'Visa',
        body: expect.stringContaining('passport') as string,
        occurrence: '2026-03-29T03:30:00+02:00',
        topic: 'task-visa-once',
      },
    ]);
    expect(world.push.sent[1]!.delivery.payload.deep_link).toBe(
      'obsidian://open?vault=vault&file=Cairn%2FTasks%2FVisa%20%28runs%29.md',
    );

    // Run history, and what is next.
    const runs = world.feature.service.runs('house-weekend', 10);
    expect(runs.runs.map((run) => [run.slot, run.status, run.output_path])).toEqual([
      ['2026-03-29T09:00:00+02:00', 'succeeded', 'Cairn/Tasks/House weekend (runs).md'],
      ['2026-03-28T09:00:00+01:00', 'succeeded', 'Cairn/Tasks/House weekend (runs).md'],
    ]);
    const after = world.feature.service.list().tasks;
    expect(after.find((task) => task.name === 'Visa')).toMatchObject({
      next_run: null,
      last_run: { status: 'succeeded', slot: '2026-03-29T03:30:00+02:00' },
    });
    expect(after.find((task) => task.name === 'Invoices')!.next_run).toBe(
      '2026-04-05T02:30:00+02:00',
    );
  });

  it('runs a 02:30 cron and RRULE task once on the fall-back night, not twice', async () => {
    world = await taskWorld('2026-10-24T12:00:00Z', {
      'Cairn/Tasks/Nightly roof.md': RRULE_FILE.replace('house-weekend', 'nightly-rrule').replace(
        'RRULE:FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=9;BYMINUTE=0',
        'RRULE:FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
      ),
    });
    await world.feature.service.create({
      name: 'Nightly invoices',
      schedule: '30 2 * * *',
      action: 'search',
      query: 'invoice',
      deliver: ['note', 'push'],
    });
    await world.advanceTo('2026-10-26T12:00:00Z');
    const expected = ['## 2026-10-26 02:30 (Europe/Berlin)', '## 2026-10-25 02:30 (Europe/Berlin)'];
    const cron = world.read('Cairn/Tasks/Nightly invoices (runs).md');
    const rrule = world.read('Cairn/Tasks/Nightly roof (runs).md');
    expect(entryHeadings(cron)).toEqual(expected);
    expect(entryHeadings(rrule)).toEqual(expected);
    // The first pass of the repeated 02:30 (CEST), then 02:30 CET the next night.
    for (const note of [cron, rrule]) {
      expect(note).toContain('<!-- cairn-task-run 2026-10-25T02:30:00+02:00 -->');
      expect(note).toContain('<!-- cairn-task-run 2026-10-26T02:30:00+01:00 -->');
    }
    expect(world.push.sent.map((sent) => new Date(sent.at).toISOString())).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('after downtime runs the latest missed slot inside the grace window, lists older ones', async () => {
    world = await taskWorld('2026-11-23T12:00:00Z');
    const daily = await world.feature.service.create({
      name: 'Daily visa',
      schedule: '0 8 * * *',
      action: 'ask',
      question: 'What do I need for the visa appointment?',
    });
    await world.advanceTo('2026-11-24T08:30:00Z');
    await world.feature.stop();
    // Down from Tuesday 09:30 to Saturday 20:00 (clock moves, nothing runs).
    world.clock.set('2026-11-28T19:00:00Z');
    await world.restart();
    await world.feature.scheduler.whenIdle();
    const note = world.read('Cairn/Tasks/Daily visa (runs).md');
    // Tuesday ran; Saturday 08:00 is inside 24 h and runs now; Wed–Fri are listed missed.
    expect(entryHeadings(note)).toEqual([
      '## 2026-11-28 08:00 (Europe/Berlin)',
      '## 2026-11-24 08:00 (Europe/Berlin)',
    ]);
    const missed = await world.feature.scheduler.missed(0, 10);
    expect(
      missed.items.map((item) =>
        item.kind === 'expired' ? new Date(item.occurrence).toISOString() : item.kind,
      ),
    ).toEqual(['2026-11-27T07:00:00.000Z', '2026-11-26T07:00:00.000Z', '2026-11-25T07:00:00.000Z']);
    // Restarting again runs nothing twice.
    await world.restart();
    await world.feature.scheduler.whenIdle();
    expect(world.read('Cairn/Tasks/Daily visa (runs).md')).toBe(note);
    expect(world.feature.service.runs(daily.id, 10).runs).toHaveLength(2);
  });
});
