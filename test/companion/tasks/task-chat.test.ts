import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { routeMessage } from '../../../shared/chat/intent-router';
import { authorized, TEST_TOKEN, testConfig } from '../helpers/app';
import { entryHeadings, taskWorld } from './helpers';
import type { TaskWorld } from './helpers';

/*
 * docs/tasks.md: the chat creates a task from "every Friday at 5pm tell me what I wrote about
 * the house" with no language model (the built-in rules), says when it runs next, and the task
 * runs on the scheduler like one made through the API. MCP's create_task goes through the same
 * runner (test/companion/clients/tool-scopes.test.ts checks its write scope).
 */

let world: TaskWorld;
let app: FastifyInstance;

beforeEach(async () => {
  world = await taskWorld('2026-11-25T12:00:00Z');
  app = await buildApp({
    config: testConfig(world.vault, join(world.dir, 'data')),
    db: world.db,
    clock: world.clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    tasks: world.feature,
    search: { index: () => world.indexer.queries },
  });
});
afterEach(async () => {
  await world.feature.stop();
  await app.close();
  await world.close();
});

describe('tasks from chat', () => {
  it('routes an "every … tell me …" message to create_task without a model', () => {
    const decision = routeMessage('Every Friday at 5pm tell me what I wrote about the house', {
      now: Date.parse('2026-11-25T12:00:00Z'),
      zone: 'Europe/Berlin',
    });
    expect(decision).toMatchObject({
      kind: 'tool',
      call: {
        name: 'create_task',
        args: {
          name: 'What I wrote about the house',
          schedule: 'RRULE:FREQ=WEEKLY;BYDAY=FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
          action: 'ask',
          question: 'What I wrote about the house?',
          deliver: ['note', 'push'],
        },
      },
    });
    expect(
      routeMessage('every month on the 1st at 9:00 search for invoice', {
        now: 0,
        zone: 'UTC',
      }),
    ).toMatchObject({
      call: { name: 'create_task', args: { action: 'search', query: 'invoice' } },
    });
  });

  it('creates the task file, says when it runs next, and the task runs', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chat',
      headers: authorized,
      payload: { message: 'every Friday at 5pm tell me what I wrote about the roof' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(
      'Task \\"What I wrote about the roof\\" is set: Cairn/Tasks/What I wrote about the roof.md. It runs next on 2026-11-27 17:00 (Europe/Berlin)',
    );
    const task = world.feature.service.list().tasks[0]!;
    expect(task).toMatchObject({
      name: 'What I wrote about the roof',
      schedule: 'RRULE:FREQ=WEEKLY;BYDAY=FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
      next_run: '2026-11-27T17:00:00+01:00',
    });
    await world.advanceTo('2026-11-27T17:00:00Z');
    const note = world.read('Cairn/Tasks/What I wrote about the roof (runs).md');
    expect(entryHeadings(note)).toEqual(['## 2026-11-27 17:00 (Europe/Berlin)']);
    expect(note).toContain('[[Projects/House|House project]]');
    expect(world.push.sent.map((sent) => sent.delivery.payload.title)).toEqual([
      'What I wrote about the roof',
    ]);
  });
});
