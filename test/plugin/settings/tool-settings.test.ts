// @vitest-environment node
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTransport } from '../../../plugin/connection/http-transport';
import { CompanionClient } from '../../../plugin/connection/client';
import type { CompanionEndpoint } from '../../../plugin/connection/client';
import {
  CompanionTools,
  serverConfigFrom,
  toolSourceWords,
} from '../../../plugin/settings/tool-settings';
import type { ToolListResponse } from '../../../shared/protocol/tools';
import { TokenStore } from '../../../companion/auth/token-store';
import { openDatabase } from '../../../companion/db/open';
import { buildTestApp, TEST_TOKEN, authorized, tempDir } from '../../companion/helpers/app';
import type { TestApp } from '../../companion/helpers/app';
import { InjectTransport } from '../../helpers/inject-transport';

/*
 * The settings tab's "Tools the chat may use" logic against the real companion routes
 * (`/api/v1/tools`, `/api/v1/tools/servers`): auth, scopes, schemas and the tool store, with a
 * real MCP server (written with the official SDK) started over stdio for add and remove.
 */

const SERVER_SCRIPT = fileURLToPath(new URL('../../fakes/mcp-tool-server.mjs', import.meta.url));

const endpoint: CompanionEndpoint = {
  url: 'http://127.0.0.1:8787',
  token: TEST_TOKEN,
  offlineMode: true,
};

let companion: TestApp;
let transport: InjectTransport;
let readWriteToken = '';
const scratch = tempDir('plugin-tools');

const toolsOf = (at: CompanionEndpoint = endpoint) =>
  new CompanionTools(new CompanionClient(transport, () => at));

/** What the companion stores, read straight from its route. */
async function storedTools(): Promise<ToolListResponse['tools']> {
  const response = await companion.app.inject({
    method: 'GET',
    url: '/api/v1/tools',
    headers: authorized,
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as ToolListResponse).tools;
}

beforeAll(async () => {
  const db = openDatabase(':memory:');
  readWriteToken = new TokenStore(db).create('laptop', ['read', 'write'], 0).token;
  companion = await buildTestApp({ deps: { db, tools: { offline: () => true } } });
  transport = new InjectTransport(() => companion.app);
});

afterAll(async () => {
  await companion?.close();
  scratch.remove();
});

describe('CompanionTools against the real companion routes', () => {
  it('loads Cairn’s tools, and a permission and switch changed here are what GET lists', async () => {
    const loaded = await toolsOf().load();
    if (!loaded.ok) throw new Error(loaded.message);
    const createNote = loaded.value.tools.find((tool) => tool.name === 'create_note');
    expect(createNote).toMatchObject({
      source: 'cairn',
      danger: 'medium',
      enabled: true,
      permission: 'allow',
    });
    expect(loaded.value.servers).toEqual([]);

    const asked = await toolsOf().update('create_note', { permission: 'ask' });
    expect(asked).toMatchObject({ ok: true, value: { name: 'create_note', permission: 'ask' } });
    const switchedOff = await toolsOf().update('search', { enabled: false });
    expect(switchedOff).toMatchObject({ ok: true, value: { enabled: false } });

    const stored = await storedTools();
    expect(stored.find((tool) => tool.name === 'create_note')?.permission).toBe('ask');
    expect(stored.find((tool) => tool.name === 'search')?.enabled).toBe(false);

    const unknown = await toolsOf().update('no_such_tool', { permission: 'deny' });
    expect(unknown).toMatchObject({ ok: false, code: 'refused' });
    if (!unknown.ok)
      expect(unknown.message).toMatch(/^PATCH \/api\/v1\/tools\/no_such_tool answered 404/);
  });

  it('adds an MCP server over stdio, lists its tools at "ask", and removes it', async () => {
    const config = serverConfigFrom({
      name: 'files',
      target: process.execPath,
      args: `${SERVER_SCRIPT}\n--stdio\n${join(scratch.path, 'calls.jsonl')}\n`,
    });
    expect(config).toEqual({
      name: 'files',
      command: process.execPath,
      args: [SERVER_SCRIPT, '--stdio', join(scratch.path, 'calls.jsonl')],
    });
    if (typeof config === 'string') return;
    const added = await toolsOf().addServer(config);
    if (!added.ok) throw new Error(added.message);
    expect(added.value).toMatchObject({ name: 'files', state: 'up', requires_network: false });
    expect(added.value.tools).toBeGreaterThan(0);

    const loaded = await toolsOf().load();
    if (!loaded.ok) throw new Error(loaded.message);
    expect(loaded.value.servers.map((server) => [server.name, server.state])).toEqual([
      ['files', 'up'],
    ]);
    const lookup = loaded.value.tools.find((tool) => tool.name === 'files__lookup');
    expect(lookup).toMatchObject({ source: 'files', danger: 'low', permission: 'ask' });
    expect(toolSourceWords(lookup!.source)).toBe('MCP: files');

    const removed = await toolsOf().removeServer('files');
    expect(removed).toEqual({ ok: true, value: null });
    const after = await toolsOf().load();
    if (!after.ok) throw new Error(after.message);
    expect(after.value.servers).toEqual([]);
    expect(after.value.tools.some((tool) => tool.source === 'files')).toBe(false);
  });

  it('a server that does not start is refused with the companion’s reason, and not kept', async () => {
    const added = await toolsOf().addServer({
      name: 'ghost',
      command: 'cairn-no-such-command-7f3a',
    });
    expect(added).toMatchObject({ ok: false, code: 'refused' });
    if (!added.ok) {
      expect(added.message).toMatch(/^POST \/api\/v1\/tools\/servers answered 422: /);
      expect(added.message).toContain('the command was not found');
    }
    const servers = await toolsOf().servers();
    expect(servers).toEqual({ ok: true, value: [] });
  });

  it('a token without the admin scope gets a sentence saying so, for every call', async () => {
    const tools = toolsOf({ ...endpoint, token: readWriteToken });
    for (const result of [
      await tools.load(),
      await tools.update('search', { permission: 'deny' }),
      await tools.addServer({ name: 'web', url: 'http://127.0.0.1:9/mcp' }),
      await tools.removeServer('web'),
    ]) {
      expect(result).toMatchObject({ ok: false, code: 'not-admin' });
      if (!result.ok) expect(result.message).toContain('not an admin token');
    }
    expect((await storedTools()).find((tool) => tool.name === 'search')?.permission).not.toBe(
      'deny',
    );
  });

  it('a wrong token, offline mode, no token and an unreachable companion each say so', async () => {
    expect(await toolsOf({ ...endpoint, token: 'nope' }).load()).toMatchObject({
      ok: false,
      code: 'unauthorized',
    });

    const before = transport.requests.length;
    const offline = await toolsOf({ ...endpoint, url: 'https://cairn.example.com' }).load();
    expect(offline).toMatchObject({ ok: false, code: 'not-sent' });
    if (!offline.ok) expect(offline.message).toContain('Offline mode only contacts');
    const noToken = await toolsOf({ ...endpoint, token: ' ' }).load();
    expect(noToken).toEqual({ ok: false, code: 'not-sent', message: 'Set the API token first.' });
    expect(transport.requests.length).toBe(before);

    const refused: HttpTransport = {
      request: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8787')),
    };
    const unreachable = await new CompanionTools(
      new CompanionClient(refused, () => endpoint),
    ).load();
    expect(unreachable).toEqual({
      ok: false,
      code: 'unreachable',
      message:
        'The companion at http://127.0.0.1:8787 is unreachable (connect ECONNREFUSED 127.0.0.1:8787).',
    });
  });
});

describe('serverConfigFrom', () => {
  it('reads a URL as Streamable HTTP and anything else as a command', () => {
    expect(
      serverConfigFrom({ name: ' cal ', target: 'http://192.168.1.20:3000/mcp', args: '' }),
    ).toEqual({
      name: 'cal',
      url: 'http://192.168.1.20:3000/mcp',
    });
    expect(serverConfigFrom({ name: 'cal', target: 'ftp://host/x', args: '' })).toEqual({
      name: 'cal',
      url: 'ftp://host/x',
    });
    expect(serverConfigFrom({ name: 'fs', target: 'npx', args: '-y\n\n pkg \n' })).toEqual({
      name: 'fs',
      command: 'npx',
      args: ['-y', 'pkg'],
    });
  });

  it('names what is missing or does not fit', () => {
    expect(serverConfigFrom({ name: '', target: 'npx', args: '' })).toMatch(/^Name the server/);
    expect(serverConfigFrom({ name: 'x', target: ' ', args: '' })).toMatch(/^Enter a command/);
    expect(serverConfigFrom({ name: 'x', target: 'http://h/mcp', args: 'a' })).toBe(
      'Arguments go with a command, not with a URL.',
    );
  });
});
