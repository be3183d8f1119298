import type { PluginManifest, WorkspaceLeaf as LeafOriginal } from 'obsidian';
import { App, Plugin, WorkspaceLeaf } from 'obsidian-test-mocks/obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CalendarItem } from '../../../shared/protocol/calendar';
import type { CompanionClient } from '../../../plugin/connection/client';
import { readFileReminders } from '../../../plugin/reminders/vault-reminder-entries';
import { defaultSettings } from '../../../shared/settings/cairn-settings';
import { setUpWeek } from '../../../plugin/week/obsidian/week-setup';
import type { WeekViewDeps } from '../../../plugin/week/obsidian/week-view';
import { WEEK_VIEW_TYPE } from '../../../plugin/week/obsidian/week-view';
import { ManualClock } from '../../fakes/clock';

beforeAll(() => setup());
afterAll(() => teardown());

const ZONE = 'Europe/Berlin';
const manifest: PluginManifest = {
  id: 'cairn',
  name: 'Cairn',
  version: '0.1.0',
  minAppVersion: '1.8.7',
  description: 'test',
  author: 'test',
};

class TestPlugin extends Plugin {}

/** The week view's deps as setUpWeek wires them, over a vault of the given files, not paired. */
function weekOver(files: Record<string, string>) {
  const app = App.createConfigured__({ files });
  const plugin = new TestPlugin(app, manifest);
  const settings = defaultSettings(ZONE);
  const read = (path: string, text: string) =>
    readFileReminders(path, text, { zone: ZONE }).entries;
  // Wednesday 2026-11-25 08:00 in Berlin.
  const clock = new ManualClock(Date.parse('2026-11-25T07:00:00Z'));
  const loaded = new Map<string, ReturnType<typeof read>>();
  setUpWeek(plugin.asOriginalType__() as never, {
    settings: () => settings,
    isPaired: () => false,
    client: {} as CompanionClient,
    localEntries: () => [...loaded.values()].flat(),
    readReminders: read,
    clock,
  });
  const factory = plugin.views__.get(WEEK_VIEW_TYPE)!;
  const view = factory(WorkspaceLeaf.create2__(app).asOriginalType__() as LeafOriginal);
  const deps = (view as unknown as { deps: WeekViewDeps }).deps;
  return {
    app,
    deps,
    /** What the view would have loaded now (the scheduler's entries). */
    async load(): Promise<CalendarItem[]> {
      loaded.clear();
      for (const path of Object.keys(files)) {
        const file = app.vault.getFileByPath(path)!;
        loaded.set(path, read(path, await app.vault.read(file)));
      }
      const week = await deps.load(0);
      if ('error' in week) throw new Error(week.error);
      return week.week.days.flatMap((day) => day.items);
    },
    text: (path: string) => app.vault.read(app.vault.getFileByPath(path)!),
    write: (path: string, text: string) =>
      app.vault.modify(app.vault.getFileByPath(path) as never, text),
  };
}

const find = (items: CalendarItem[], title: string) => items.find((item) => item.title === title)!;

describe('week view Done and Snooze without a companion', () => {
  it('checks the task it showed after lines above moved, not the one now at its old line', async () => {
    const week = weekOver({
      'Tasks.md': [
        '- [ ] Buy milk',
        '- [ ] Call the bank @remind(2026-11-25 10:00)',
        '- [ ] Pay the rent @remind(2026-11-25 11:00)',
        '',
      ].join('\n'),
    });
    const items = await week.load();
    const bank = find(items, 'Call the bank');
    expect(bank.line).toBe(2);
    // A line above is deleted after the week was loaded.
    await week.write(
      'Tasks.md',
      '- [ ] Call the bank @remind(2026-11-25 10:00)\n- [ ] Pay the rent @remind(2026-11-25 11:00)\n',
    );
    expect(await week.deps.done(bank)).toBeUndefined();
    expect(await week.text('Tasks.md')).toBe(
      '- [x] Call the bank @remind(2026-11-25 10:00)\n- [ ] Pay the rent @remind(2026-11-25 11:00)\n',
    );
  });

  it('finds a line with a block id wherever it moved, and refuses when its line is gone', async () => {
    const week = weekOver({
      'Log.md':
        '- [ ] Renew passport @remind(2026-11-26 09:00) ^r-pass\n- [ ] Other @remind(2026-11-26 10:00)\n',
    });
    const items = await week.load();
    const passport = find(items, 'Renew passport');
    const other = find(items, 'Other');
    await week.write(
      'Log.md',
      'New first line\n\n- [ ] Other, edited @remind(2026-11-26 10:00)\n- [ ] Renew passport @remind(2026-11-26 09:00) ^r-pass\n',
    );
    expect(await week.deps.snooze(passport)).toBeUndefined();
    // "Other" was edited: its text no longer matches, so nothing is written.
    const refused = await week.deps.done(other);
    expect(refused).toContain('Log.md');
    expect(refused).toContain('no longer in the note');
    expect(await week.text('Log.md')).toBe(
      'New first line\n\n- [ ] Other, edited @remind(2026-11-26 10:00)\n- [ ] Renew passport @remind(2026-11-25 08:15) ^r-pass\n',
    );
  });

  it("completes a Tasks line with Tasks' done date and refuses a recurring one", async () => {
    const week = weekOver({
      'Chores.md': [
        '- [ ] Submit the form ⏰ 2026-11-25 10:00 📅 2026-11-26 ^r-form',
        '- [ ] Water plants ⏰ 2026-11-25 18:00 🔁 every week',
        '',
      ].join('\n'),
    });
    const items = await week.load();
    expect(await week.deps.done(find(items, 'Submit the form 📅 2026-11-26'))).toBeUndefined();
    const recurring = await week.deps.done(find(items, 'Water plants 🔁 every week'));
    expect(recurring).toContain('Tasks');
    const snooze = await week.deps.snooze(find(items, 'Water plants 🔁 every week'));
    expect(snooze).toContain('Reminder plugin');
    expect(await week.text('Chores.md')).toBe(
      [
        '- [x] Submit the form ⏰ 2026-11-25 10:00 📅 2026-11-26 ✅ 2026-11-25 ^r-form',
        '- [ ] Water plants ⏰ 2026-11-25 18:00 🔁 every week',
        '',
      ].join('\n'),
    );
  });

  it('does not offer what the line would refuse: Done on a recurring Tasks line, Snooze off @remind', async () => {
    const week = weekOver({
      'Chores.md': [
        '- [ ] Submit the form ⏰ 2026-11-25 10:00 📅 2026-11-26 ^r-form',
        '- [ ] Water plants ⏰ 2026-11-25 18:00 🔁 every week',
        '- [ ] Call the bank @remind(2026-11-25 17:00)',
        '',
      ].join('\n'),
    });
    const items = await week.load();
    const loaded = await week.deps.load(0);
    if ('error' in loaded) throw new Error(loaded.error);
    const readOnly = loaded.readOnly ?? {};
    const of = (title: string) => readOnly[find(items, title).id] ?? {};
    expect(of('Water plants 🔁 every week')).toEqual({
      done: expect.stringContaining('complete it with Tasks'),
      snooze: expect.any(String),
    });
    expect(of('Submit the form 📅 2026-11-26')).toEqual({ snooze: expect.any(String) });
    expect(of('Call the bank')).toEqual({});
  });
});
