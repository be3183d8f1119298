import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

/*
 * The built CLI: `token create|list|revoke` against a running companion, and `mcp` over stdio
 * (the official SDK's StdioClientTransport starting `dist/companion/cli.mjs mcp`), both with a
 * companion already running on the vault and without one.
 */

const CLI = join(repoRoot, 'dist/companion/cli.mjs');

function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        !entry[0].startsWith('CAIRN_') && entry[1] !== undefined,
    ),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv(), encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  await buildCompanionOnce();
});

let work: string;
let vault: string;
let dataDir: string;
let server: { child: ChildProcess; exit: Promise<unknown>; output: () => string } | null = null;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'cairn-e2e-clients-'));
  vault = join(work, 'vault');
  dataDir = join(work, 'data');
  cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });
});
afterEach(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exit;
  }
  server = null;
  rmSync(work, { recursive: true, force: true });
});

async function startServer(): Promise<string> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [CLI, '--vault', vault, '--data', dataDir, '--port', String(port)],
    {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  server = {
    child,
    exit: new Promise((resolve) => child.on('exit', resolve)),
    output: () => output,
  };
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`companion exited:\n${output}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return base;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`companion did not start:\n${output}`);
}

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--vault', vault, '--data', dataDir],
      env: cleanEnv(),
      stderr: 'pipe',
    }),
  );
  return client;
}

function text(result: unknown): string {
  return (result as CallToolResult).content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
}

describe('cairn-companion token', () => {
  it('creates, scopes and revokes tokens while the companion runs', async () => {
    const base = await startServer();
    const created = cli([
      'token',
      'create',
      '--name',
      'laptop',
      '--scope',
      'read',
      '--vault',
      vault,
      '--data',
      dataDir,
    ]);
    expect(created.status, created.stderr).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1)!;
    const auth = { authorization: `Bearer ${token}` };

    const self = await fetch(`${base}/api/v1/tokens/self`, { headers: auth });
    expect(await self.json()).toEqual({ name: 'laptop', scopes: ['read'] });
    const write = await fetch(`${base}/api/v1/notes`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Nope', body: 'x' }),
    });
    expect(write.status).toBe(403);
    expect(await write.json()).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: 'POST /api/v1/notes needs the write scope, which the token "laptop" does not have',
      },
    });

    const list = cli(['token', 'list', '--vault', vault, '--data', dataDir]);
    expect(list.stdout).toMatch(/^owner\tread, write, admin, sync\t.*\nlaptop\tread\tcreated /);

    expect(cli(['token', 'revoke', 'laptop', '--vault', vault, '--data', dataDir]).status).toBe(0);
    expect((await fetch(`${base}/api/v1/tokens/self`, { headers: auth })).status).toBe(401);
    expect(
      cli(['token', 'revoke', 'laptop', '--vault', vault, '--data', dataDir]).stderr,
    ).toContain('no token named "laptop"');
  });

  it('refuses bad input with usage errors', () => {
    const noScope = cli(['token', 'create', '--name', 'x', '--vault', vault, '--data', dataDir]);
    expect(noScope.status).toBe(2);
    expect(noScope.stderr).toContain('create needs --scope');
    const badScope = cli([
      'token',
      'create',
      '--name',
      'x',
      '--scope',
      'read,root',
      '--vault',
      vault,
      '--data',
      dataDir,
    ]);
    expect(badScope.stderr).toContain('unknown scope "root"');
    const badName = cli([
      'token',
      'create',
      '--name',
      'a b',
      '--scope',
      'read',
      '--vault',
      vault,
      '--data',
      dataDir,
    ]);
    expect(badName.status).toBe(2);
  });
});

describe('cairn-companion mcp (stdio)', () => {
  it('relays to the running companion: its tools, its audit log', async () => {
    const base = await startServer();
    const client = await mcpClient();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('read_note');
      const read = await client.callTool({
        name: 'read_note',
        arguments: { path: 'Garden.md', to_line: 3 },
      });
      expect(text(read)).toMatch(/^1: ---/);
    } finally {
      await client.close();
    }
    const owner = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const audit = await fetch(`${base}/api/v1/audit`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    const entries = ((await audit.json()) as { entries: Array<Record<string, unknown>> }).entries;
    expect(entries[0]).toMatchObject({
      action: 'read_note',
      client: 'mcp',
      path: 'Garden.md',
      outcome: 'ok',
    });
  });

  it('starts its own companion when none runs, and stops it when the client leaves', async () => {
    const client = await mcpClient();
    const created = await client.callTool({
      name: 'create_note',
      arguments: { title: 'From stdio', body: 'Written through MCP over stdio.' },
    });
    expect((created as CallToolResult).isError).toBeFalsy();
    const path = (created.structuredContent as { data: { note: { path: string } } }).data.note.path;
    expect(existsSync(join(vault, path))).toBe(true);
    expect(existsSync(join(dataDir, 'server.json'))).toBe(true);
    await client.close();
    for (let attempt = 0; attempt < 100 && existsSync(join(dataDir, 'server.json')); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
  });
});
