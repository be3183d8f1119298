import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { withPathRules } from '../../../companion/auth/path-rules';
import type { TaskService } from '../../../companion/tasks/task-service';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import { authorized, TEST_TOKEN, testConfig } from '../helpers/app';
import { taskWorld } from './helpers';
import type { TaskWorld } from './helpers';

/*
 * `/api/v1/tasks` (docs/tasks.md) through the real app: schema and schedule checks answer 400
 * naming the field with nothing written, a created task is a file with its next run, PATCH
 * changes only its keys, enable/disable, DELETE, and the run history.
 */

let world: TaskWorld;
let app: FastifyInstance;

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
  // buildApp hands the feature its own search; keep the indexed one for the runs.
  world.feature.useSearch(() => new HybridSearch({ index: world.indexer.queries }));
});
afterEach(async () => {
  await world.feature.stop();
  await app.close();
  await world.close();
});

/** Answers are read loosely in the asserts below. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const response = await app.inject({
    method,
    url,
    headers: authorized,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: response.statusCode, body: response.json() as Json };
}

const HOUSE = {
  name: 'House',
  schedule: '0 17 * * FRI',
  action: 'ask',
  question: 'What will the new roof be?',
  deliver: ['note', 'push'],
};

describe('/api/v1/tasks', () => {
  it('creates a task file and answers 201 with its next run', async () => {
    const created = await call('POST', '/api/v1/tasks', HOUSE);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'House',
      path: 'Cairn/Tasks/House.md',
      schedule: '0 17 * * FRI',
      timezone: 'Europe/Berlin',
      enabled: true,
      action: 'ask',
      question: 'What will the new roof be?',
      deliver: ['note', 'push'],
      output: 'Cairn/Tasks/House (runs).md',
      next_run: '2026-11-27T17:00:00+01:00',
      last_run: null,
    });
    const text = world.read('Cairn/Tasks/House.md');
    expect(text).toContain('type: task\nschedule: 0 17 * * FRI\ntimezone: Europe/Berlin');
    const listed = await call('GET', '/api/v1/tasks');
    expect(listed.body.tasks.map((task: { id: string }) => task.id)).toEqual([created.body.id]);
    expect((await call('GET', `/api/v1/tasks/${created.body.id}`)).body.name).toBe('House');
    expect((await call('POST', '/api/v1/tasks', HOUSE)).body.error).toMatchObject({
      code: 'CONFLICT',
      field: 'name',
    });
  });

  it.each([
    [{ ...HOUSE, schedule: 'every friday at 5' }, 'schedule'],
    [{ ...HOUSE, schedule: '2026-11-20T17:00' }, 'schedule'],
    [{ ...HOUSE, timezone: 'Mars/Olympus' }, 'timezone'],
    [{ ...HOUSE, action: 'summon' }, 'action'],
    [{ ...HOUSE, action: 'prompt', prompt: 'Plan my week' }, 'action'],
    [{ ...HOUSE, action: 'search' }, 'query'],
    [{ ...HOUSE, deliver: ['email'] }, 'deliver[0]'],
    [{ ...HOUSE, name: 'a/b' }, 'name'],
    [{ ...HOUSE, colour: 'red' }, 'colour'],
  ])('refuses %j with a 400 naming %s, writing nothing', async (body, field) => {
    const answer = await call('POST', '/api/v1/tasks', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe(field);
    expect((await call('GET', '/api/v1/tasks')).body.tasks).toEqual([]);
  });

  it('patches only the keys given, disables and enables, and deletes the file', async () => {
    const { body: task } = await call('POST', '/api/v1/tasks', HOUSE);
    const patched = await call('PATCH', `/api/v1/tasks/${task.id}`, { schedule: '30 8 * * MON' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      schedule: '30 8 * * MON',
      next_run: '2026-11-30T08:30:00+01:00',
    });
    expect(world.read('Cairn/Tasks/House.md')).toContain('question: What will the new roof be?');
    const bad = await call('PATCH', `/api/v1/tasks/${task.id}`, { schedule: '99 * * * *' });
    expect(bad).toMatchObject({ status: 400, body: { error: { field: 'schedule' } } });
    expect(world.read('Cairn/Tasks/House.md')).toContain('schedule: 30 8 * * MON');

    const off = await call('POST', `/api/v1/tasks/${task.id}/disable`);
    expect(off.body).toMatchObject({ enabled: false, next_run: null });
    expect(world.read('Cairn/Tasks/House.md')).toContain('enabled: false');
    const on = await call('POST', `/api/v1/tasks/${task.id}/enable`);
    expect(on.body).toMatchObject({ enabled: true, next_run: '2026-11-30T08:30:00+01:00' });

    const removed = await call('DELETE', `/api/v1/tasks/${task.id}`);
    expect(removed.status).toBe(200);
    expect((await call('GET', `/api/v1/tasks/${task.id}`)).status).toBe(404);
  });

  it('lists a hand-edited task file that cannot run with its field and line', async () => {
    world.write(
      'Cairn/Tasks/Broken.md',
      '---\nid: broken-1\ntype: task\nschedule: tomorrow at 8\naction: ask\nquestion: hi\n---\n',
    );
    await world.feature.source.refreshFile('Cairn/Tasks/Broken.md');
    const listed = await call('GET', '/api/v1/tasks');
    expect(listed.body.invalid).toEqual([
      {
        id: 'broken-1',
        name: 'Broken',
        path: 'Cairn/Tasks/Broken.md',
        problems: [
          { field: 'schedule', line: 4, message: expect.stringContaining('tomorrow at 8') },
        ],
      },
    ]);
    const missed = await world.feature.scheduler.missed(0, 10);
    expect(missed.items[0]).toMatchObject({
      kind: 'unresolved',
      path: 'Cairn/Tasks/Broken.md',
      line: 4,
    });
  });

  it('serves the run history newest first, with paging', async () => {
    const { body: task } = await call('POST', '/api/v1/tasks', { ...HOUSE, schedule: '0 9 * * *' });
    await world.advanceTo('2026-11-29T12:00:00Z');
    const first = await call('GET', `/api/v1/tasks/${task.id}/runs?limit=2`);
    expect(first.body.runs.map((run: { slot: string }) => run.slot)).toEqual([
      '2026-11-29T09:00:00+01:00',
      '2026-11-28T09:00:00+01:00',
    ]);
    expect(first.body.runs[0]).toMatchObject({
      status: 'succeeded',
      output_path: 'Cairn/Tasks/House (runs).md',
      duration_ms: 0,
      summary: expect.stringContaining('slate'),
    });
    const second = await call(
      'GET',
      `/api/v1/tasks/${task.id}/runs?limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.runs.map((run: { slot: string }) => run.slot)).toEqual([
      '2026-11-27T09:00:00+01:00',
    ]);
    expect(second.body.next_cursor).toBeUndefined();
    const listed = await call('GET', '/api/v1/tasks');
    expect(listed.body.tasks[0].last_run.slot).toBe('2026-11-29T09:00:00+01:00');
  });
});

describe('before the task scheduler starts', () => {
  it('takes a task through the API and plans it when the scheduler starts', async () => {
    const early = await taskWorld('2026-11-26T12:00:00Z', {}, {}, { start: false });
    try {
      const task = await early.feature.service.create({
        name: 'Early',
        schedule: '0 9 * * *',
        action: 'ask',
        question: 'What will the new roof be?',
      });
      expect(task.next_run).toBeNull();
      await early.feature.start();
      expect(early.feature.service.get(task.id).next_run).toBe('2026-11-27T09:00:00+01:00');
    } finally {
      await early.close();
    }
  });

  it('refuses a token limited to folders: a task would read the whole vault when it runs', async () => {
    const before = world.feature.service.list();
    const created = withPathRules(['Cairn'], () =>
      world.feature.service.create(HOUSE as Parameters<TaskService['create']>[0]),
    );
    await expect(created).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(created).rejects.toThrow(/limited to Cairn\/.*without --paths/);
    expect(world.feature.service.list()).toEqual(before);
    const made = (await call('POST', '/api/v1/tasks', HOUSE)).body as Json;
    const changed = withPathRules(['Cairn'], () =>
      world.feature.service.patch(made.id as string, { enabled: false }),
    );
    await expect(changed).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
