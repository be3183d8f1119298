import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseIsoWeek } from '../../../shared/calendar';
import type { CalendarItem, CalendarWeek } from '../../../shared/protocol/calendar';
import { readFileReminders } from '../../../plugin/reminders/vault-reminder-entries';
import { localWeek, noteEvents, weekAt } from '../../../plugin/week/week-data';
import WeekView from '../../../plugin/week/ui/WeekView.svelte';
import { repoRoot } from '../../helpers/corpora';

const ZONE = 'Europe/Berlin';
const SAMPLE = join(repoRoot, 'companion/sample-vault');

/** The sample vault's reminders, read by the plugin's own reader. */
function sampleEntries() {
  return [
    'Journal/2026-11-22.md',
    'Garden.md',
    'Projects/Companion setup.md',
    'Cairn/Reminders/call-the-bank.md',
  ].flatMap(
    (path) =>
      readFileReminders(path, readFileSync(join(SAMPLE, path), 'utf8'), { zone: ZONE }).entries,
  );
}

describe('localWeek (no companion)', () => {
  it('lays out the vault reminders and Full Calendar notes like the companion route', () => {
    const week = localWeek({
      week: parseIsoWeek('2026-W48'),
      zone: ZONE,
      entries: sampleEntries(),
      events: noteEvents(
        [
          {
            path: 'Cal/Dentist.md',
            frontMatter: { title: 'Dentist', date: '2026-11-24', startTime: '14:00' },
          },
          { path: 'Cal/Broken.md', frontMatter: { date: '2026-11-24', startTime: '25:00' } },
          { path: 'Plain.md', frontMatter: undefined },
        ],
        ZONE,
      ),
      vaultName: 'vault',
    });
    expect(week.days[0]!.items.map((item) => [item.id, item.start])).toEqual([
      ['r-x81c', '2026-11-23T09:00:00+01:00'],
      ['r-m3n9', '2026-11-23T09:30:00+01:00'],
      ['5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13', '2026-11-23T17:00:00+01:00'],
      ['r-7k2p', '2026-11-23T17:00:00+01:00'],
    ]);
    expect(week.days[0]!.items.find((item) => item.id === 'r-7k2p')).toMatchObject({
      path: 'Journal/2026-11-22.md',
      line: 5,
    });
    expect(week.days[1]!.items).toContainEqual(
      expect.objectContaining({
        kind: 'event',
        title: 'Dentist',
        start: '2026-11-24T14:00:00+01:00',
      }),
    );
    expect(JSON.stringify(week)).not.toContain('Broken');
  });

  it('weekAt steps whole ISO weeks from today', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(weekAt(now, ZONE, 0)).toEqual(parseIsoWeek('2026-W48'));
    expect(weekAt(now, ZONE, -1)).toEqual(parseIsoWeek('2026-W47'));
    expect(weekAt(now, ZONE, 6)).toEqual(parseIsoWeek('2027-W01'));
  });
});

describe('WeekView.svelte', () => {
  afterEach(() => cleanup());

  const weekFor = (offset: number): CalendarWeek =>
    localWeek({
      week: weekAt(Date.parse('2026-11-25T10:00:00Z'), ZONE, offset),
      zone: ZONE,
      entries: sampleEntries(),
      events: [],
      vaultName: 'vault',
    });

  it('shows seven days, highlights today, navigates, and calls Done/Snooze/open', async () => {
    const load = vi.fn(async (offset: number) => ({
      week: weekFor(offset),
      source: 'From this vault',
    }));
    const onOpen = vi.fn();
    const onDone = vi.fn(async () => undefined);
    const onSnooze = vi.fn(
      async () =>
        'Projects/Companion setup.md:24: a recurring reminder cannot be snoozed in the note',
    );
    const view = render(WeekView, {
      props: { load, today: () => '2026-11-25', onOpen, onDone, onSnooze, refreshMs: 0 },
    });
    await screen.findByText('2026-W48');
    expect(view.container.querySelectorAll('.cairn-week-day')).toHaveLength(7);
    expect(
      view.container.querySelector('.cairn-week-day.is-today .cairn-week-day-label')?.textContent,
    ).toBe('Wed 25');
    const first = view.container.querySelector<HTMLElement>('.cairn-week-day .cairn-week-item')!;
    expect(first.textContent).toContain('Water the plants');

    await fireEvent.click(first.querySelector('.cairn-week-open')!);
    expect((onOpen.mock.calls[0]![0] as CalendarItem).id).toBe('r-x81c');
    await fireEvent.click(screen.getAllByText('Done')[0]!);
    expect(onDone).toHaveBeenCalledTimes(1);
    await fireEvent.click(screen.getAllByText('Snooze')[0]!);
    expect(await screen.findByRole('alert')).toHaveProperty(
      'textContent',
      expect.stringContaining('cannot be snoozed'),
    );

    await fireEvent.click(screen.getByLabelText('Next week'));
    await screen.findByText('2026-W49');
    expect(load).toHaveBeenLastCalledWith(1);
    await fireEvent.click(screen.getByText('Today'));
    await screen.findByText('2026-W48');
  });

  it('offers no Done or Snooze that the reminder’s line would refuse', async () => {
    const load = vi.fn(async (offset: number) => ({
      week: weekFor(offset),
      source: 'From this vault',
      readOnly: {
        'r-x81c': { done: 'complete it with Tasks', snooze: 'Cairn only reads it' },
        'r-m3n9': { snooze: 'a recurring reminder cannot be snoozed in the note' },
      },
    }));
    const view = render(WeekView, {
      props: {
        load,
        today: () => '2026-11-25',
        onOpen: vi.fn(),
        onDone: vi.fn(async () => undefined),
        onSnooze: vi.fn(async () => undefined),
        refreshMs: 0,
      },
    });
    await screen.findByText('2026-W48');
    const itemOf = (id: string) =>
      [
        ...view.container.querySelectorAll<HTMLElement>(
          '.cairn-week-day:first-child .cairn-week-item',
        ),
      ][weekFor(0).days[0]!.items.findIndex((item) => item.id === id)]!;
    const buttons = (id: string) =>
      [...itemOf(id).querySelectorAll('.cairn-week-actions button')].map((el) => el.textContent);
    expect(buttons('r-x81c')).toEqual([]);
    expect(itemOf('r-x81c').querySelector('.cairn-week-read-only')?.textContent).toBe('read only');
    expect(buttons('r-m3n9')).toEqual(['Done']);
    expect(buttons('r-7k2p')).toEqual(['Done', 'Snooze']);
  });

  it('says why a week could not be loaded', async () => {
    render(WeekView, {
      props: {
        load: async () => ({ error: 'GET /api/v1/calendar/week answered 503' }),
        today: () => '2026-11-25',
        onOpen: () => undefined,
        onDone: async () => undefined,
        onSnooze: async () => undefined,
        refreshMs: 0,
      },
    });
    expect((await screen.findByRole('alert')).textContent).toContain('answered 503');
  });
});
