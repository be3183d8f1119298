import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_TOKEN, SAMPLE_VAULT, authorized } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { chatEvents } from '../chat/sse-client';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * POST /api/v1/chat under scoped tokens: the same write gate and audit as MCP and the OpenAI
 * route, through the chat's own SSE stream.
 */

let index: IndexerFixture;
let test: ClientTestApp;

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
  await index.indexer.whenIdle();
});
afterAll(async () => {
  await index?.close();
});
beforeEach(async () => {
  test = await startClientTestApp(index);
});
afterEach(() => test.close());

async function chat(token: string, message: string) {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/v1/chat',
    headers: { authorization: `Bearer ${token}`, 'x-cairn-client': 'phone' },
    payload: { message },
  });
  expect(response.statusCode).toBe(200);
  return chatEvents(response.body);
}

async function lastAudit() {
  const response = await test.app.inject({
    method: 'GET',
    url: '/api/v1/audit?limit=1',
    headers: authorized,
  });
  return response.json<{ entries: Array<Record<string, unknown>> }>().entries[0];
}

describe('chat with scoped tokens', () => {
  it('a read token gets FORBIDDEN for a write tool, nothing is written, the refusal is audited', async () => {
    const reader = test.token('tablet', ['read']);
    const before = readdirSync(join(test.vault, 'Cairn/Reminders'));
    const events = await chat(reader, 'remind me tomorrow at 9 to water the plants');
    const tool = events.find((event) => event.type === 'tool');
    expect(tool).toMatchObject({
      name: 'create_reminder',
      result: { success: false, error: { code: 'FORBIDDEN' } },
    });
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'FORBIDDEN' } });
    expect(readdirSync(join(test.vault, 'Cairn/Reminders'))).toEqual(before);
    expect(await lastAudit()).toMatchObject({
      token: 'tablet',
      client: 'phone',
      action: 'create_reminder',
      outcome: 'refused',
    });
  });

  it('the owner token writes, and the call is audited with its path', async () => {
    const events = await chat(TEST_TOKEN, 'remind me tomorrow at 9 to water the plants');
    expect(events.at(-1)?.type).toBe('done');
    const entry = await lastAudit();
    expect(entry).toMatchObject({ token: 'owner', action: 'create_reminder', outcome: 'ok' });
    expect(String(entry?.path)).toMatch(/^Cairn\/Reminders\//);
  });
});
