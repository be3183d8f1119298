import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { MetricsRegistry } from '../../../companion/metrics/registry';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { writeCursor } from '../../../companion/reminders/missed-routes';
import { MissedResponse } from '../../../shared/protocol/reminders';
import { StatusResponse } from '../../../shared/protocol/status';
import { TEST_TOKEN, authorized, testConfig } from '../helpers/app';
import { HOUR, Harness, once, recurring } from './helpers';

let harness: Harness | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  // As in the server: the scheduler stops before the app closes the database.
  await harness?.scheduler?.stop();
  await app?.close();
  await harness?.dispose();
  app = undefined;
  harness = undefined;
});

/** The real app over the harness's database and scheduler, after a downtime that missed things. */
async function appWithMissed(): Promise<{
  app: FastifyInstance;
  h: Harness;
  metrics: MetricsRegistry;
}> {
  const h = new Harness(
    '2026-11-23T00:00:00Z',
    [
      recurring('hourly', 'FREQ=HOURLY', '2026-11-23T01:00', 'America/New_York'),
      once('call', '2026-11-23T02:30:00Z'),
    ],
    2 * HOUR,
  );
  harness = h;
  h.source.setUnresolved([
    {
      id: 'Inbox.md::call mum',
      title: 'call mum',
      path: 'Inbox.md',
      line: 4,
      detail: '"tomorrow 5pm" is natural language; open the note to fix it',
    },
  ]);
  await h.start();
  await h.stop();
  h.jumpTo('2026-11-23T12:00:00Z');
  const scheduler = await h.start();
  const metrics = new MetricsRegistry();
  const built = await buildApp({
    config: testConfig(h.dir.path, h.dir.path),
    db: h.db!,
    clock: h.clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    metrics,
  });
  app = built;
  return { app: built, h, metrics };
}

describe('GET /api/v1/reminders/missed', () => {
  it('lists unresolved tokens, then expired occurrences newest first, with their zone offset', async () => {
    const { app } = await appWithMissed();
    const response = await app.inject({
      url: '/api/v1/reminders/missed?limit=3',
      headers: authorized,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json() as MissedResponse;
    expect(Value.Check(MissedResponse, body)).toBe(true);
    expect(body.missed).toEqual([
      {
        reminder_id: 'Inbox.md::call mum',
        title: 'call mum',
        path: 'Inbox.md',
        line: 4,
        occurrence: null,
        reason: 'unresolved',
        problem: 'invalid',
        detail: '"tomorrow 5pm" is natural language; open the note to fix it',
      },
      {
        reminder_id: 'hourly',
        title: 'Title hourly',
        path: 'Reminders/hourly.md',
        occurrence: '2026-11-23T04:00:00-05:00',
        reason: 'expired',
      },
      {
        reminder_id: 'hourly',
        title: 'Title hourly',
        path: 'Reminders/hourly.md',
        occurrence: '2026-11-23T03:00:00-05:00',
        reason: 'expired',
      },
    ]);
    expect(body.next_cursor).toEqual(expect.any(String));
  });

  it('pages through everything with the cursor, each entry once', async () => {
    const { app } = await appWithMissed();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const response = await app.inject({
        url: `/api/v1/reminders/missed${query}`,
        headers: authorized,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json() as MissedResponse;
      seen.push(...body.missed.map((entry) => `${entry.reminder_id}@${entry.occurrence}`));
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 50);
    // Back at 12:00Z with 2 h of grace: `hourly` fired 07:00 EST (12:00Z) for 05:00-07:00 EST
    // and lists 01:00-04:00 EST; `call` (02:30Z) is listed; plus the unresolved token.
    expect(seen).toEqual([
      'Inbox.md::call mum@null',
      'hourly@2026-11-23T04:00:00-05:00',
      'hourly@2026-11-23T03:00:00-05:00',
      'hourly@2026-11-23T02:00:00-05:00',
      'hourly@2026-11-23T01:00:00-05:00',
      'call@2026-11-23T03:30:00+01:00',
    ]);
    expect(pages).toBe(3);
  });

  it('refuses a forged cursor, a bad limit and unknown parameters, naming the field', async () => {
    const { app } = await appWithMissed();
    for (const [query, field] of [
      ['cursor=not-ours', 'cursor'],
      [`cursor=${Buffer.from('m1:-5').toString('base64url')}`, 'cursor'],
      ['cursor=%00%01', 'cursor'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=3', 'offset'],
    ] as const) {
      const response = await app.inject({
        url: `/api/v1/reminders/missed?${query}`,
        headers: authorized,
      });
      expect(response.statusCode, query).toBe(400);
      const body = response.json() as { error: { code: string; message: string; field?: string } };
      expect(body.error.code, query).toBe('VALIDATION_ERROR');
      expect(`${body.error.field ?? ''} ${body.error.message}`, query).toContain(field);
    }
  });

  it('answers an empty page past the end', async () => {
    const { app } = await appWithMissed();
    const response = await app.inject({
      url: `/api/v1/reminders/missed?cursor=${writeCursor(10_000)}`,
      headers: authorized,
    });
    expect(response.json()).toEqual({ missed: [], next_cursor: null });
  });

  it('needs the token', async () => {
    const { app } = await appWithMissed();
    const response = await app.inject({ url: '/api/v1/reminders/missed' });
    expect(response.statusCode).toBe(401);
  });
});

describe('scheduler in status and metrics', () => {
  it('reports scheduled reminders and the next fire in GET /api/v1/status', async () => {
    const { app } = await appWithMissed();
    const response = await app.inject({ url: '/api/v1/status', headers: authorized });
    const body = response.json() as StatusResponse;
    expect(Value.Check(StatusResponse, body)).toBe(true);
    expect(body.scheduler).toEqual({ reminders: 1, next_fire: '2026-11-23T08:00:00-05:00' });
  });

  it('exports fire lag and deliveries on /metrics', async () => {
    const h = new Harness('2026-11-23T00:00:00Z', [once('r', '2026-11-23T01:00:00Z')]);
    harness = h;
    const metrics = new MetricsRegistry();
    h.db = openDatabase(h.file);
    h.scheduler = new ReminderScheduler({
      db: h.db,
      clock: h.clock,
      timer: h.timer,
      source: h.source,
      deliverer: h.deliverer,
      graceMs: HOUR,
      metrics,
    });
    await h.scheduler.start();
    await h.advanceTo('2026-11-23T01:00:00.250Z');
    const text = metrics.render();
    expect(text).toContain('cairn_reminder_fire_lag_seconds_count 2');
    expect(text).toContain('cairn_reminder_deliveries_total{outcome="sent"} 2');
    expect(text).toContain('cairn_reminders_scheduled 0');
    expect(text).toContain('cairn_reminders_missed 0');
  });
});
