import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateFeedSecret } from '../../../companion/calendar/feed-secret';
import { createLogger } from '../../../companion/logging';
import { CLIENT_TOOL_NAMES } from '../../../companion/tools/client-tools';
import { startServer } from '../../../companion/server';
import type { RunningServer } from '../../../companion/server';
import { ManualClock } from '../../fakes/clock';
import { tempDir, testConfig } from '../helpers/app';

/*
 * Per-token path rules on every route (docs/clients.md "Path rules"): the whole companion, as
 * `startServer` wires it (reminders, calendar, tasks, digests, memories, sync, chat, MCP, the
 * OpenAI route), over a vault with notes inside and outside `Work/`. Every route the app
 * registered (`app.cairnRoutes`) has a probe here, so a new route fails the first test until
 * it is walked; a token limited to `Work/` calls each and must get nothing from outside (no
 * outside path, no outside words in any body) and change nothing outside on disk. The owner's
 * token calls the reading probes too and does see the outside words, so each check can fail.
 */

/** In every note outside Work/: the word a leak would carry. */
const SECRET = 'zanzibar';

const FILES: Record<string, string> = {
  'Work/Harbour plan.md': [
    '# Harbour plan',
    '',
    'Decision: we use the harbour crane instead of the barge.',
    '',
    '- [ ] Call the harbour master @remind(2026-11-23 09:00) ^r-work',
    '- [ ] Old harbour invoice @remind(2026-11-01 09:00) ^r-wold',
    '',
    'See [[Harbour crane]] for the crane.',
    '',
  ].join('\n'),
  'Work/Harbour crane.md': '# Harbour crane\n\nThe harbour crane lifts twelve tonnes.\n',
  'Private/Zanzibar diary.md': [
    '# Zanzibar diary',
    '',
    'Decision: we decided to keep the zanzibar locker instead of the safe.',
    '',
    '- [ ] Renew the zanzibar lease @remind(2026-11-23 10:00) ^r-priv',
    '- [ ] Zanzibar tax form @remind(2026-11-01 10:00) ^r-pold',
    '- [ ] Zanzibar ferry @remind(the blue moon) ^r-punr',
    '',
    'See [[Zanzibar missing note]] and [[Harbour plan]].',
    '',
  ].join('\n'),
  'Private/Zanzibar dinner.md': [
    '---',
    'title: Zanzibar dinner',
    'date: 2026-11-24',
    'startTime: "19:00"',
    'endTime: "21:00"',
    'allDay: false',
    '---',
    'Dinner at the zanzibar harbour restaurant.',
    '',
  ].join('\n'),
  'Work/Harbour meeting.md': [
    '---',
    'title: Harbour meeting',
    'date: 2026-11-25',
    'startTime: "10:00"',
    'endTime: "11:00"',
    'allDay: false',
    '---',
    'Meeting about the harbour crane.',
    '',
  ].join('\n'),
  'Zanzibar harbour.md': '# Zanzibar harbour\n\nThe zanzibar harbour has a crane too.\n',
  'Private/zanzibar-empty.md': '',
  // Not a PDF at all: the index lists it as failed (status, knowledge health).
  'Private/Zanzibar scan.pdf': 'not a PDF\n',
};

let dir: ReturnType<typeof tempDir>;
let vault: string;
let server: RunningServer;
let owner: string;
let work: string;
let feedSecret: string;
/** Ids of things outside Work/ the owner made: a memory, a task. */
const outside = { memory: '', task: '' };

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

async function asOwner(method: 'GET' | 'POST', url: string, payload?: object): Promise<unknown> {
  const response = await server.app.inject({
    method,
    url,
    headers: bearer(owner),
    ...(payload ? { payload } : {}),
  });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json();
}

beforeAll(async () => {
  dir = tempDir('path-walk');
  vault = join(dir.path, 'vault');
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(vault, path)), { recursive: true });
    writeFileSync(join(vault, path), text);
  }
  server = await startServer(
    { ...testConfig(vault, join(dir.path, 'data')), port: 0 },
    { logger: createLogger('silent'), clock: ManualClock.at('2026-11-22T10:00:00Z') },
  );
  owner = server.token.createdToken!;
  // The calendar feed's secret, as `cairn-companion calendar-url` makes it: no route may hand
  // it out (it opens the whole vault's feed).
  feedSecret = loadOrCreateFeedSecret(join(dir.path, 'data'));
  work = (
    (await asOwner('POST', '/api/v1/tokens', {
      name: 'work',
      scopes: ['read', 'write'],
      paths: ['Work/'],
    })) as { token: string }
  ).token;
  // Things outside Work/ that are not notes the test wrote: a memory (Cairn/Memory.md), a task
  // (Cairn/Tasks/), its runs, a digest (Cairn/Digests/).
  outside.memory = (
    (await asOwner('POST', '/api/v1/memories', {
      text: `The ${SECRET} locker code is 4411`,
    })) as { id: string }
  ).id;
  outside.task = (
    (await asOwner('POST', '/api/v1/tasks', {
      name: `Zanzibar check`,
      schedule: '0 17 * * FRI',
      action: 'search',
      query: SECRET,
    })) as { id: string }
  ).id;
  await asOwner('POST', '/api/v1/digests', {});
  await server.indexer.whenIdle();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  dir?.remove();
});

/** One request of a probe; `owner` says the owner's answer to it must show the outside words. */
interface Probe {
  readonly method: string;
  readonly url: string;
  readonly payload?: unknown;
  readonly headers?: Record<string, string>;
  readonly ownerSees?: boolean;
  /** The status the limited token must get: the thing is not there for it. */
  readonly refused?: number;
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

function mcpCall(name: string, args: Record<string, unknown>, ownerSees = false): Probe {
  return {
    method: 'POST',
    url: '/mcp',
    headers: MCP_HEADERS,
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    ownerSees,
  };
}

/**
 * Every route's probes, keyed `METHOD /url` as the app registered it. Reads ask for what lies
 * outside Work/ (its ids, its paths, a week holding its reminders); writes try to change it.
 */
function probes(): Record<string, Probe[]> {
  const get = (url: string, ownerSees = false): Probe => ({ method: 'GET', url, ownerSees });
  const send = (method: string, url: string, payload?: unknown): Probe => ({
    method,
    url,
    ...(payload === undefined ? {} : { payload }),
  });
  const diary = encodeURIComponent('Private/Zanzibar diary.md');
  return {
    'GET /health': [get('/health')],
    'GET /metrics': [get('/metrics')],
    'GET /api/v1/status': [get('/api/v1/status', true)],
    'GET /api/v1/phone/config': [get('/api/v1/phone/config')],
    'GET /api/v1/audit': [get('/api/v1/audit')],
    'POST /api/v1/tokens': [send('POST', '/api/v1/tokens', { name: 'x', scopes: ['read'] })],
    'DELETE /api/v1/tokens/:name': [send('DELETE', '/api/v1/tokens/work')],
    'GET /api/v1/tokens/self': [get('/api/v1/tokens/self')],
    'GET /api/v1/tools': [get('/api/v1/tools')],
    'PATCH /api/v1/tools/:name': [send('PATCH', '/api/v1/tools/search', { enabled: false })],
    'GET /api/v1/tools/servers': [get('/api/v1/tools/servers')],
    'POST /api/v1/tools/servers': [send('POST', '/api/v1/tools/servers', {})],
    'DELETE /api/v1/tools/servers': [send('DELETE', '/api/v1/tools/servers')],
    'DELETE /api/v1/tools/servers/:name': [send('DELETE', '/api/v1/tools/servers/x')],
    'GET /api/v1/tools/runs': [get('/api/v1/tools/runs')],
    'GET /api/v1/tools/asks': [get('/api/v1/tools/asks')],
    'POST /api/v1/tools/asks/:id': [send('POST', '/api/v1/tools/asks/a-1', { allow: true })],
    'GET /api/v1/models/use-lite/files/:name': [get('/api/v1/models/use-lite/files/x')],
    'GET /v1/models': [get('/v1/models')],
    'GET /api/v1/push/key': [get('/api/v1/push/key')],
    'GET /api/v1/push/subscriptions': [get('/api/v1/push/subscriptions')],
    'POST /api/v1/push/subscriptions': [send('POST', '/api/v1/push/subscriptions', {})],
    'DELETE /api/v1/push/subscriptions/:id': [send('DELETE', '/api/v1/push/subscriptions/x')],
    'POST /api/v1/push/test': [send('POST', '/api/v1/push/test', {})],
    'GET /api/v1/reminders/missed': [get('/api/v1/reminders/missed', true)],
    'GET /api/v1/reminders': [get('/api/v1/reminders', true)],
    'POST /api/v1/reminders': [
      send('POST', '/api/v1/reminders', { title: 'Gate call', due: '2026-11-30T09:00' }),
    ],
    'GET /api/v1/reminders/:id': [{ ...get('/api/v1/reminders/r-priv', true), refused: 404 }],
    'PATCH /api/v1/reminders/:id': [send('PATCH', '/api/v1/reminders/r-priv', { title: 'x' })],
    'DELETE /api/v1/reminders/:id': [send('DELETE', '/api/v1/reminders/r-priv')],
    'GET /api/v1/reminders/:id/occurrences': [
      { ...get('/api/v1/reminders/r-priv/occurrences'), refused: 404 },
    ],
    'POST /api/v1/reminders/:id/snooze': [
      send('POST', '/api/v1/reminders/r-priv/snooze', { minutes: 15 }),
    ],
    'POST /api/v1/reminders/:id/done': [send('POST', '/api/v1/reminders/r-priv/done', {})],
    'GET /api/v1/calendar/week': [get('/api/v1/calendar/week?week=2026-W48', true)],
    // Public: its secret path is the credential, which only the data folder holds.
    'GET /api/v1/calendar/:feed': [get('/api/v1/calendar/not-the-secret.ics')],
    'POST /api/v1/notes': [
      send('POST', '/api/v1/notes', { title: 'Gate', body: 'x', folder: 'Private' }),
    ],
    'POST /api/v1/import': [
      send('POST', '/api/v1/import', {
        kind: 'bookmarks',
        file: 'bookmarks.html',
        text: '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://example.org/">Example</A>\n</DL><p>\n',
      }),
    ],
    'GET /api/v1/memories': [{ ...get('/api/v1/memories', true), refused: 403 }],
    'GET /api/v1/memories/categories': [get('/api/v1/memories/categories')],
    'GET /api/v1/memories/links': [get('/api/v1/memories/links')],
    'POST /api/v1/memories/:id/link': [send('POST', `/api/v1/memories/${outside.memory}/link`)],
    'PATCH /api/v1/memories/:id': [
      send('PATCH', `/api/v1/memories/${outside.memory}`, { category: 'home' }),
    ],
    'POST /api/v1/memories': [send('POST', '/api/v1/memories', { text: 'the gate code is 7' })],
    'DELETE /api/v1/memories/:id': [send('DELETE', `/api/v1/memories/${outside.memory}`)],
    'POST /api/v1/memories/import': [send('POST', '/api/v1/memories/import', {})],
    'POST /api/v1/memories/:id/reminder': [
      send('POST', `/api/v1/memories/${outside.memory}/reminder`, { due: '2026-11-30T09:00' }),
    ],
    'POST /api/v1/digests': [send('POST', '/api/v1/digests', { week: '2026-W46' })],
    'GET /api/v1/sync/changes': [get('/api/v1/sync/changes')],
    'POST /api/v1/sync/commit': [send('POST', '/api/v1/sync/commit', {})],
    'POST /api/v1/sync/confirm': [send('POST', '/api/v1/sync/confirm', {})],
    // A limited token cannot hold the sync scope: sync's history and trash are not for it.
    'GET /api/v1/sync/history': [{ ...get(`/api/v1/sync/history?path=${diary}`), refused: 403 }],
    'GET /api/v1/sync/trash': [{ ...get('/api/v1/sync/trash'), refused: 403 }],
    'GET /api/v1/sync/blobs/:hash': [get(`/api/v1/sync/blobs/${'0'.repeat(64)}`)],
    'PUT /api/v1/sync/blobs/:hash': [send('PUT', `/api/v1/sync/blobs/${'0'.repeat(64)}`, {})],
    'POST /api/v1/sync/blobs/batch': [
      send('POST', '/api/v1/sync/blobs/batch', { hashes: ['0'.repeat(64)] }),
    ],
    'POST /api/v1/sync/devices': [send('POST', '/api/v1/sync/devices', {})],
    'POST /api/v1/sync/unpair': [send('POST', '/api/v1/sync/unpair', {})],
    'POST /api/v1/sync/restore': [send('POST', '/api/v1/sync/restore', {})],
    'POST /api/v1/ingest': [send('POST', '/api/v1/ingest', {})],
    'GET /api/v1/search': [get('/api/v1/search?q=locker', true)],
    'GET /api/v1/related': [
      { ...get(`/api/v1/related?path=${diary}`, true), refused: 404 },
      get(`/api/v1/related?path=${encodeURIComponent('Work/Harbour plan.md')}`),
    ],
    'POST /api/v1/answer': [
      {
        method: 'POST',
        url: '/api/v1/answer',
        payload: { question: 'What about the locker?' },
        ownerSees: true,
      },
    ],
    'GET /api/v1/tasks': [get('/api/v1/tasks', true)],
    'POST /api/v1/tasks': [
      send('POST', '/api/v1/tasks', {
        name: 'Gate weekly',
        schedule: '0 9 * * MON',
        action: 'search',
        query: 'x',
      }),
    ],
    'GET /api/v1/tasks/:id': [{ ...get(`/api/v1/tasks/${outside.task}`, true), refused: 404 }],
    'PATCH /api/v1/tasks/:id': [send('PATCH', `/api/v1/tasks/${outside.task}`, { query: 'y' })],
    'POST /api/v1/tasks/:id/enable': [send('POST', `/api/v1/tasks/${outside.task}/enable`)],
    'POST /api/v1/tasks/:id/disable': [send('POST', `/api/v1/tasks/${outside.task}/disable`)],
    'DELETE /api/v1/tasks/:id': [send('DELETE', `/api/v1/tasks/${outside.task}`)],
    'GET /api/v1/tasks/:id/runs': [{ ...get(`/api/v1/tasks/${outside.task}/runs`), refused: 404 }],
    'GET /api/v1/decisions': [get('/api/v1/decisions?q=locker', true)],
    'GET /api/v1/health/knowledge': [get('/api/v1/health/knowledge', true)],
    'POST /api/v1/chat': [
      send('POST', '/api/v1/chat', { message: 'what about the locker?' }),
      send('POST', '/api/v1/chat', { message: 'note: the gate in the private folder' }),
    ],
    'POST /mcp': [
      mcpCall('search', { query: 'locker' }, true),
      mcpCall('read_note', { path: 'Private/Zanzibar diary.md' }, true),
      mcpCall('list_reminders', {}, true),
      mcpCall('recall', { query: 'locker' }, true),
      mcpCall('ask', { question: 'What about the locker?' }, true),
      mcpCall('append_to_note', { path: 'Private/Zanzibar diary.md', text: 'more' }),
      mcpCall('create_note', { title: 'Gate new', body: 'x', folder: 'Private' }),
      mcpCall('complete_reminder', { id: 'r-priv' }),
      mcpCall('snooze_reminder', { id: 'r-priv', minutes: 10 }),
      mcpCall('remember', { fact: 'the bike lock is 1234' }),
      mcpCall('forget', { memory: outside.memory }),
      mcpCall('memory_to_reminder', { memory: outside.memory, due: '2026-11-30T09:00' }),
      mcpCall('create_reminder', { title: 'Gate call', due: '2026-11-30T09:00' }),
      mcpCall('create_task', {
        name: 'Gate check',
        schedule: '0 9 * * MON',
        action: 'search',
        query: 'locker',
      }),
    ],
    // (Without `Accept: text/event-stream`: the stream it would open never ends.)
    'GET /mcp': [get('/mcp')],
    'DELETE /mcp': [send('DELETE', '/mcp')],
    'POST /v1/chat/completions': [
      send('POST', '/v1/chat/completions', {
        model: 'cairn',
        messages: [{ role: 'user', content: 'What about the locker?' }],
      }),
    ],
  };
}

/** Every file of the vault outside Work/, with its text. */
function outsideFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const inVault = relative(vault, path).split('\\').join('/');
      if (inVault.startsWith('Work/') || inVault === 'Work') continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.set(inVault, readFileSync(path, 'utf8'));
    }
  };
  walk(vault);
  return files;
}

/** What in `body` comes from outside Work/: the secret word, or an outside file's path. */
function leaksIn(body: string, paths: readonly string[]): string[] {
  const found: string[] = [];
  if (body.toLowerCase().includes(SECRET)) found.push(SECRET);
  if (body.includes(feedSecret)) found.push('the calendar feed secret');
  for (const path of paths) {
    const stem = path.replace(/\.md$/, '');
    for (const form of [stem, encodeURIComponent(stem), JSON.stringify(stem).slice(1, -1)]) {
      if (body.includes(form)) found.push(path);
    }
  }
  return [...new Set(found)];
}

/**
 * The strings a probe sends (URL parts, payload values): a refusal may say them back (`read_note
 * Private/… is outside Work/`), which tells the caller nothing it did not know.
 */
function askedStrings(probe: Probe): string[] {
  const asked: string[] = [];
  const url = new URL(probe.url, 'http://x');
  asked.push(...url.pathname.split('/').filter((part) => part.length > 3));
  for (const value of url.searchParams.values()) asked.push(value);
  const walk = (value: unknown): void => {
    if (typeof value === 'string') asked.push(value);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(probe.payload);
  return asked.sort((a, b) => b.length - a.length);
}

function withoutEchoes(body: string, probe: Probe): string {
  let rest = body;
  for (const asked of askedStrings(probe)) {
    for (const form of [asked, JSON.stringify(asked).slice(1, -1)])
      rest = rest.split(form).join('');
  }
  return rest;
}

async function call(probe: Probe, token: string): Promise<{ status: number; body: string }> {
  const response = await server.app.inject({
    method: probe.method as 'GET',
    url: probe.url,
    headers: { ...bearer(token), ...probe.headers },
    ...(probe.payload === undefined ? {} : { payload: probe.payload as object }),
  });
  return { status: response.statusCode, body: response.body };
}

describe('a token limited to Work/ on every route', () => {
  it('every registered route has a probe here', () => {
    const registered = server.app.cairnRoutes.map((route) => `${route.method} ${route.url}`);
    expect(registered.length).toBeGreaterThan(60);
    expect(registered.filter((route) => !(route in probes()))).toEqual([]);
    expect(Object.keys(probes()).filter((route) => !registered.includes(route))).toEqual([]);
    // And every MCP tool (chat and the OpenAI route run the same ones, shared/chat).
    const tools = probes()['POST /mcp']!.map(
      (probe) => (probe.payload as { params: { name: string } }).params.name,
    );
    expect([...new Set(tools)].sort()).toEqual([...CLIENT_TOOL_NAMES].sort());
  });

  it('reads nothing from outside Work/ and writes nothing there', async () => {
    const before = outsideFiles();
    // The memory file's place is documented (docs/memory-digest-calendar.md); refusals name it.
    const paths = [...before.keys()].filter((path) => path !== 'Cairn/Memory.md');
    const leaks: string[] = [];
    const ownerMissed: string[] = [];
    for (const [route, list] of Object.entries(probes())) {
      for (const probe of list) {
        const limited = await call(probe, work);
        const found = leaksIn(withoutEchoes(limited.body, probe), paths);
        if (found.length > 0) {
          leaks.push(`${route} (${probe.url}) ${limited.status}: ${found}`);
          if (process.env.CAIRN_SHOW_LEAKS) console.log(route, limited.body.slice(0, 600));
        }
        if (probe.refused !== undefined && limited.status !== probe.refused) {
          leaks.push(`${route} (${probe.url}) answered ${limited.status}, not ${probe.refused}`);
        }
        if (probe.ownerSees === true) {
          const seen = await call(probe, owner);
          if (leaksIn(seen.body, paths).length === 0) ownerMissed.push(`${route} (${probe.url})`);
        }
      }
    }
    await server.indexer.whenIdle();
    expect(leaks).toEqual([]);
    // Each reading probe could fail: the owner's token does see the outside there.
    expect(ownerMissed).toEqual([]);
    expect(outsideFiles()).toEqual(before);
  }, 60_000);

  it('cannot subscribe a phone to notifications, which cover the whole vault', async () => {
    const subscription = {
      endpoint: 'https://push.example.com/send/limited',
      keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) },
    };
    const before = await asOwner('GET', '/api/v1/push/subscriptions');
    const refused = await server.app.inject({
      method: 'POST',
      url: '/api/v1/push/subscriptions',
      headers: bearer(work),
      payload: subscription,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(refused.json().error.message).toContain('without --paths');
    expect(await asOwner('GET', '/api/v1/push/subscriptions')).toEqual(before);
  });
});
