// @vitest-environment node
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import { CompanionClient } from '../../../plugin/connection/client';
import {
  NEEDS_COMPANION,
  createTask,
  draftToRequest,
  emptyDraft,
  loadTasks,
  scheduleWords,
  setTaskEnabled,
} from '../../../plugin/tasks/scheduled-tasks';
import type { TaskDraft, TasksSource } from '../../../plugin/tasks/scheduled-tasks';
import { TEST_TOKEN, testConfig } from '../../companion/helpers/app';
import { taskWorld } from '../../companion/tasks/helpers';
import type { TaskWorld } from '../../companion/tasks/helpers';
import { InjectTransport } from '../../helpers/inject-transport';

/*
 * The plugin's scheduled tasks view and form (docs/tasks.md) against the real companion routes:
 * a real task feature over an indexed vault and database (test/companion/tasks/helpers.ts),
 * the plugin's one CompanionClient over app.inject. What the companion refuses comes back next
 * to the form's field, and nothing is written.
 */

let world: TaskWorld;
let app: FastifyInstance;
let transport: InjectTransport;
const endpoint = { url: 'http://127.0.0.1:8787', token: TEST_TOKEN, offlineMode: true };

beforeEach(async () => {
  world = await taskWorld('2026-11-26T12:00:00Z');
  app = await buildApp({
    config: testConfig(world.vault, join(world.dir, 'data')),
    db: world.db,
    clock: world.clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    tasks: world.feature,
  });
  world.feature.useSearch(() => new HybridSearch({ index: world.indexer.queries }));
  transport = new InjectTransport(() => app);
});
afterEach(async () => {
  await world.feature.stop();
  await app.close();
  await world.close();
});

const source = (url = endpoint.url): TasksSource => ({
  client: new CompanionClient(transport, () => ({ ...endpoint, url })),
  companionUrl: () => url,
});

function draft(changes: Partial<TaskDraft>): TaskDraft {
  return { ...emptyDraft('Europe/Berlin'), ...changes };
}

const taskFiles = () =>
  existsSync(join(world.vault, 'Cairn/Tasks')) ? readdirSync(join(world.vault, 'Cairn/Tasks')) : [];

describe('the scheduled tasks view against the real companion routes', () => {
  it('creates a weekly task from the form and lists it with its next run', async () => {
    const created = await createTask(
      source(),
      draft({
        name: 'House',
        kind: 'weekly',
        days: ['FRI'],
        time: '17:00',
        action: 'ask',
        input: 'What did I write about the house?',
        deliverPush: true,
      }),
    );
    expect(created).toMatchObject({
      ok: true,
      task: {
        name: 'House',
        schedule: '0 17 * * FRI',
        timezone: 'Europe/Berlin',
        deliver: ['note', 'push'],
        question: 'What did I write about the house?',
        next_run: '2026-11-27T17:00:00+01:00',
      },
    });
    expect(world.read('Cairn/Tasks/House.md')).toContain('schedule: 0 17 * * FRI');

    const loaded = await loadTasks(source());
    if (!loaded.ok) throw new Error(loaded.message);
    expect(loaded.tasks.map((task) => [task.name, scheduleWords(task, 'Europe/Berlin')])).toEqual([
      ['House', 'Every Friday at 17:00'],
    ]);
    expect(scheduleWords(loaded.tasks[0]!, 'America/New_York')).toBe(
      'Every Friday at 17:00 (Europe/Berlin)',
    );
  });

  it('builds each kind of schedule the form offers', async () => {
    const cases: [Partial<TaskDraft>, string][] = [
      [{ kind: 'once', at: '2026-12-01T08:00' }, '2026-12-01T08:00'],
      [{ kind: 'daily', time: '7:05' }, '5 7 * * *'],
      [{ kind: 'weekly', days: ['SUN', 'MON'], time: '09:30' }, '30 9 * * MON,SUN'],
      [{ kind: 'cron', cron: ' 0 9 1 * * ' }, '0 9 1 * *'],
      [
        { kind: 'rrule', rrule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0' },
        'RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0',
      ],
    ];
    for (const [index, [changes, schedule]] of cases.entries()) {
      const outcome = await createTask(
        source(),
        draft({ name: `Task ${index}`, action: 'search', input: 'invoice', ...changes }),
      );
      expect(outcome.ok && outcome.task.schedule).toBe(schedule);
      if (outcome.ok) expect(outcome.task.next_run).not.toBeNull();
    }
    expect(taskFiles()).toHaveLength(5);
  });

  it.each<[string, Partial<TaskDraft>, string, RegExp]>([
    ['a bad zone', { timezone: 'Mars/Olympus' }, 'timezone', /time ?zone|Mars\/Olympus/i],
    ['an impossible cron', { kind: 'cron', cron: 'every friday' }, 'cron', /cron/],
    ['a one-off in the past', { kind: 'once', at: '2026-11-20T17:00' }, 'at', /past/],
    ['an RRULE that is not one', { kind: 'rrule', rrule: 'FREQ=SOMETIMES' }, 'rrule', /FREQ|rule/i],
    [
      'a prompt task with no language model',
      { action: 'prompt', input: 'Plan my week' },
      'action',
      /language model/,
    ],
  ])(
    'shows the companion’s 400 for %s next to its field, writing nothing',
    async (_, changes, field, message) => {
      const outcome = await createTask(
        source(),
        draft({ name: 'House', action: 'ask', input: 'What about the roof?', ...changes }),
      );
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(Object.keys(outcome.errors)).toEqual([field]);
      expect(outcome.errors[field as keyof typeof outcome.errors]).toMatch(message);
      expect(taskFiles()).toEqual([]);
    },
  );

  it('a name already taken is said at the name', async () => {
    const house = draft({ name: 'House', action: 'search', input: 'roof' });
    expect((await createTask(source(), house)).ok).toBe(true);
    const again = await createTask(source(), house);
    expect(again).toEqual({
      ok: false,
      errors: { name: expect.stringMatching(/exists already/) as unknown as string },
    });
  });

  it('says what the form lacks before asking the companion', async () => {
    const before = transport.requests.length;
    const outcome = await createTask(
      source(),
      draft({ name: ' ', kind: 'weekly', days: [], action: 'ask', input: '', deliverNote: false }),
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(Object.keys(outcome.errors).sort()).toEqual(['days', 'deliver', 'input', 'name']);
    expect(transport.requests.length).toBe(before);
    expect(draftToRequest(draft({ name: 'Digest', action: 'digest', input: '' }))).toMatchObject({
      ok: true,
      body: { action: 'digest', period: 'week' },
    });
  });

  it('turns a task off and on, writing enabled: into its note', async () => {
    const created = await createTask(
      source(),
      draft({ name: 'Invoices', action: 'search', input: 'invoice' }),
    );
    if (!created.ok) throw new Error(JSON.stringify(created.errors));
    const off = await setTaskEnabled(source(), created.task.id, false);
    expect(off).toMatchObject({ ok: true, task: { enabled: false, next_run: null } });
    expect(world.read('Cairn/Tasks/Invoices.md')).toContain('enabled: false');
    const on = await setTaskEnabled(source(), created.task.id, true);
    expect(on).toMatchObject({ ok: true, task: { enabled: true } });
    expect(on.ok && on.task.next_run).toBeTruthy();
    const missing = await setTaskEnabled(source(), 'no-such-task', true);
    expect(missing).toMatchObject({ ok: false, message: expect.stringContaining('404') });
  });

  it('explains that tasks need the companion when none is paired, sending nothing', async () => {
    expect(await loadTasks(source(''))).toEqual({ ok: false, message: NEEDS_COMPANION });
    expect(await createTask(source(''), draft({ name: 'House', input: 'x' }))).toEqual({
      ok: false,
      errors: { form: NEEDS_COMPANION },
    });
    expect(transport.requests).toEqual([]);
  });
});
