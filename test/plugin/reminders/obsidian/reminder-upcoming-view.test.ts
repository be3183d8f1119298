import type { WorkspaceLeaf as LeafOriginal } from 'obsidian';
import { App, WorkspaceLeaf } from 'obsidian-test-mocks/obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalReminderScheduler } from '../../../../plugin/reminders/local-scheduler';
import type { LocalReminders } from '../../../../plugin/reminders/obsidian/reminder-runtime';
import { UpcomingRemindersView } from '../../../../plugin/reminders/obsidian/reminder-upcoming-view';
import type {
  CompanionReminders,
  UpcomingViewDeps,
} from '../../../../plugin/reminders/obsidian/reminder-upcoming-view';
import { readFileReminders } from '../../../../plugin/reminders/vault-reminder-entries';
import { ManualClock } from '../../../fakes/clock';

beforeAll(() => setup());
afterAll(() => teardown());

const ZONE = 'Europe/Berlin';

/** The view with the workspace's visibility replaced by a switch the test holds. */
class ViewUnderTest extends UpcomingRemindersView {
  visible = true;
  protected override onScreen(): boolean {
    return this.visible;
  }
}

/** 50 reminders in one note, read and scheduled by the plugin's own reader and scheduler. */
async function fiftyReminders(clock: ManualClock): Promise<LocalReminders> {
  const lines = Array.from(
    { length: 50 },
    (_, i) => `- [ ] Task ${i} @remind(2026-12-${String(1 + (i % 28)).padStart(2, '0')} 09:00)`,
  );
  const entries = readFileReminders('Tasks.md', lines.join('\n'), { zone: ZONE }).entries;
  const scheduler = new LocalReminderScheduler({
    clock,
    timers: { set: () => 0, clear: () => undefined },
    store: { load: async () => [], save: async () => undefined },
    notifier: { notify: () => undefined },
    isPaired: () => true,
    onError: () => undefined,
  });
  await scheduler.start([['Tasks.md', entries]]);
  return { scheduler, problems: () => [] };
}

async function openView(deps: Partial<UpcomingViewDeps> & { clock: ManualClock }) {
  const app = App.createConfigured__({ files: {} });
  const leaf = WorkspaceLeaf.create2__(app).asOriginalType__() as LeafOriginal;
  const local = await fiftyReminders(deps.clock);
  const view = new ViewUnderTest(leaf, {
    reminders: () => local,
    now: () => deps.clock.now(),
    status: () => 'Paired',
    open: deps.open ?? (() => undefined),
    ...(deps.companion ? { companion: deps.companion } : {}),
  });
  const registered = vi.spyOn(view, 'registerDomEvent');
  const render = vi.spyOn(view, 'render');
  await view.onOpen();
  return { view, registered, render };
}

describe('Upcoming reminders view', () => {
  it('registers one listener however often it redraws, and each item still opens its line', async () => {
    const clock = ManualClock.at('2026-11-27T10:00:00Z');
    const open = vi.fn();
    const { view, registered, render } = await openView({ clock, open });
    for (let i = 0; i < 20; i++) view.changed();
    expect(render).toHaveBeenCalledTimes(21);
    expect(view.contentEl.querySelectorAll('.cairn-reminder-item')).toHaveLength(50);
    expect(registered).toHaveBeenCalledTimes(1);
    const link = [...view.contentEl.querySelectorAll<HTMLElement>('a.cairn-reminder-link')].find(
      (candidate) => candidate.textContent === 'Task 3',
    )!;
    link.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    expect(open).toHaveBeenCalledWith('Tasks.md', 4);
  });

  it('redraws nothing while hidden, once when it comes back', async () => {
    const clock = ManualClock.at('2026-11-27T10:00:00Z');
    const { view, render } = await openView({ clock });
    render.mockClear();
    view.visible = false;
    for (let i = 0; i < 20; i++) view.changed();
    expect(render).not.toHaveBeenCalled();
    view.visible = true;
    view.shown();
    view.shown();
    expect(render).toHaveBeenCalledTimes(1);
  });

  it('asks the companion once a minute, not once per redraw', async () => {
    const clock = ManualClock.at('2026-11-27T10:00:00Z');
    const answer: CompanionReminders = { reminders: [], missed: [] };
    const companion = vi.fn(() => Promise.resolve(answer));
    const { view } = await openView({ clock, companion });
    for (let i = 0; i < 20; i++) view.changed();
    await Promise.resolve();
    expect(companion).toHaveBeenCalledTimes(1);
    expect(view.contentEl.querySelector('.cairn-reminders-companion')?.textContent).toContain(
      '0 active, 0 missed',
    );
    clock.advance(60_000);
    view.changed();
    view.changed();
    expect(companion).toHaveBeenCalledTimes(2);
  });
});
