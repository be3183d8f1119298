import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, fireEvent, render, waitFor } from '@testing-library/svelte';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../../companion/app';
import { sha256 } from '../../../../companion/auth/token';
import { openDatabase } from '../../../../companion/db/open';
import type { SqliteDatabase } from '../../../../companion/db/open';
import { TaskFeature } from '../../../../companion/tasks';
import { CompanionClient } from '../../../../plugin/connection/client';
import {
  NEEDS_COMPANION,
  createTask,
  loadTasks,
  setTaskEnabled,
} from '../../../../plugin/tasks/scheduled-tasks';
import type { TaskDraft, TasksSource } from '../../../../plugin/tasks/scheduled-tasks';
import ScheduledTasks from '../../../../plugin/tasks/ui/ScheduledTasks.svelte';
import { TEST_TOKEN, tempDir, testConfig } from '../../../companion/helpers/app';
import { ManualTimer } from '../../../companion/reminders/helpers';
import { ManualClock } from '../../../fakes/clock';
import { InjectTransport } from '../../../helpers/inject-transport';

/*
 * ScheduledTasks.svelte wired as the Obsidian adapter wires it, to the real companion routes
 * (app.inject through the plugin's CompanionClient): the list, the switch, and the form's 400s
 * shown next to their field.
 */

let temp: ReturnType<typeof tempDir>;
let vault: string;
let db: SqliteDatabase;
let feature: TaskFeature;
let app: FastifyInstance;

// No vault index here (its PDF reader needs Node's URL, which happy-dom replaces): listing,
// switching and creating tasks do not search.
beforeEach(async () => {
  temp = tempDir('tasks-view');
  vault = join(temp.path, 'vault');
  mkdirSync(join(vault, 'Cairn/Tasks'), { recursive: true });
  writeFileSync(
    join(vault, 'Cairn/Tasks/Invoices.md'),
    '---\nid: invoices\ntype: task\nschedule: 0 9 1 * *\ntimezone: Europe/Berlin\naction: search\nquery: invoice\n---\n',
  );
  const clock = ManualClock.at('2026-11-26T12:00:00Z');
  db = openDatabase(join(temp.path, 'cairn.db'));
  feature = new TaskFeature({
    vault,
    db,
    clock,
    defaultZone: 'Europe/Berlin',
    graceMs: 24 * 3_600_000,
    timer: new ManualTimer(clock),
  });
  await feature.start();
  app = await buildApp({
    config: testConfig(vault, join(temp.path, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    tasks: feature,
  });
  app.addHook('onClose', () => undefined);
});
afterEach(async () => {
  cleanup();
  await feature.stop();
  await app.close();
  db.close();
  temp.remove();
});

const read = (path: string) => readFileSync(join(vault, path), 'utf8');

function renderView(url = 'http://127.0.0.1:8787') {
  const source: TasksSource = {
    client: new CompanionClient(new InjectTransport(() => app), () => ({
      url,
      token: TEST_TOKEN,
      offlineMode: true,
    })),
    companionUrl: () => url,
  };
  const onOpen = vi.fn();
  const view = render(ScheduledTasks, {
    props: {
      load: () => loadTasks(source),
      setEnabled: (id: string, enabled: boolean) => setTaskEnabled(source, id, enabled),
      create: (draft: TaskDraft) => createTask(source, draft),
      zone: 'Europe/Berlin',
      formatWhen: (iso: string) => iso,
      onOpen,
    },
  });
  return { view, onOpen, $: (selector: string) => view.container.querySelector(selector) };
}

describe('the Scheduled tasks view', () => {
  it('lists a task with its schedule in words and turns it off with its switch', async () => {
    const { $, onOpen } = renderView();
    await waitFor(() => expect($('[data-task="Invoices"]')).not.toBeNull());
    const row = $('[data-task="Invoices"]')!;
    expect(row.querySelector('.cairn-tasks-schedule')!.textContent).toBe(
      'Every month on the 1st at 09:00',
    );
    expect(row.querySelector('.cairn-tasks-next')!.textContent!.trim()).toBe(
      'Next: 2026-12-01T09:00:00+01:00',
    );
    expect(row.querySelector('.cairn-tasks-last')!.textContent!.trim()).toBe('Not run yet');
    await fireEvent.click(row.querySelector('.cairn-tasks-name')!);
    expect(onOpen).toHaveBeenCalledWith('Cairn/Tasks/Invoices.md', false);

    const toggle = row.querySelector<HTMLInputElement>('input[role="switch"]')!;
    expect(toggle.checked).toBe(true);
    toggle.checked = false;
    await fireEvent.change(toggle);
    await waitFor(() =>
      expect($('[data-task="Invoices"] .cairn-tasks-next')!.textContent!.trim()).toBe('Off'),
    );
    expect(read('Cairn/Tasks/Invoices.md')).toContain('enabled: false');
  });

  it('shows the companion’s 400 next to the field it names, and creates once fixed', async () => {
    const { $, view } = renderView();
    await waitFor(() => expect($('.cairn-tasks-new')).not.toBeNull());
    await fireEvent.click($('.cairn-tasks-new')!);
    const form = $('form.cairn-tasks-form')!;
    await fireEvent.input(form.querySelector('input[name="name"]')!, {
      target: { value: 'House' },
    });
    const kind = form.querySelector<HTMLSelectElement>('select[name="kind"]')!;
    kind.querySelector<HTMLOptionElement>('option[value="cron"]')!.selected = true;
    await fireEvent.change(kind);
    await fireEvent.input(form.querySelector('input[name="cron"]')!, {
      target: { value: 'every friday' },
    });
    await fireEvent.input(form.querySelector('textarea[name="input"]')!, {
      target: { value: 'What did I write about the house?' },
    });
    await fireEvent.submit(form);
    await waitFor(() => expect($('[data-field="cron"]')).not.toBeNull());
    // Beside the cron input, in its label; nothing written.
    const cronError = $('[data-field="cron"]')!;
    expect(cronError.closest('label')!.querySelector('input[name="cron"]')).not.toBeNull();
    expect(cronError.textContent).toMatch(/cron/);
    expect(feature.service.list().tasks.map((task) => task.name)).toEqual(['Invoices']);

    await fireEvent.input(form.querySelector('input[name="cron"]')!, {
      target: { value: '0 17 * * FRI' },
    });
    await fireEvent.input(form.querySelector('input[name="timezone"]')!, {
      target: { value: 'Mars/Olympus' },
    });
    await fireEvent.submit(form);
    await waitFor(() => expect($('[data-field="timezone"]')).not.toBeNull());
    expect($('[data-field="cron"]')).toBeNull();

    await fireEvent.input(form.querySelector('input[name="timezone"]')!, {
      target: { value: 'Europe/Berlin' },
    });
    await fireEvent.submit(form);
    await waitFor(() => expect($('[data-task="House"]')).not.toBeNull());
    expect($('form.cairn-tasks-form')).toBeNull();
    expect($('.cairn-tasks-notice')!.textContent).toBe(
      'Created House; it runs next 2026-11-27T17:00:00+01:00.',
    );
    expect(read('Cairn/Tasks/House.md')).toContain('schedule: 0 17 * * FRI');
    view.unmount();
  });

  it('explains that tasks run on the companion when none is paired', async () => {
    const { $ } = renderView('');
    await waitFor(() => expect($('.cairn-tasks-error')).not.toBeNull());
    expect($('.cairn-tasks-error')!.textContent).toBe(NEEDS_COMPANION);
    expect($('.cairn-tasks-new')).toBeNull();
  });
});
