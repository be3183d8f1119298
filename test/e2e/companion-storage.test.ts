import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

/*
 * The built companion on a real full and a real read-only disk: a small tmpfs mounted in a
 * private mount namespace (`unshare -rm`, no root needed where user namespaces are allowed).
 * Where they are not, these tests are skipped, and atomic-write-storage.test.ts still covers
 * the same errors injected at the file system port.
 */
const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const TOKEN = 'storage-token-0123456789abcdefghijklmnopqrst';
const canMount =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], {
    stdio: 'ignore',
  }).status === 0;

function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
  );
  return { ...env, CAIRN_TOKEN: TOKEN };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Running {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

/** `setup` (shell, inside the namespace), then the companion with `args`. */
function startMounted(setup: string, args: string[]): Running {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`);
  const child = spawn(
    'unshare',
    ['-rm', 'sh', '-c', `set -e; ${setup}; exec ${quoted.join(' ')}`],
    {
      env: cleanEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exit };
}

let dir: string;
let running: Running | undefined;
beforeAll(async () => {
  if (canMount) await buildCompanionOnce();
}, 300_000);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-storage-'));
});
afterEach(async () => {
  if (running !== undefined && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exit;
  }
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!canMount)('the built companion on a full or read-only disk', () => {
  it('refuses to start on a full data folder and names the folder', async () => {
    const vault = join(dir, 'vault');
    const data = join(dir, 'data');
    mkdirSync(vault);
    mkdirSync(data);
    running = startMounted(
      // Room for the token and push keys, not for the database.
      `mount -t tmpfs -o size=24k tmpfs '${data}'`,
      ['--vault', vault, '--data', data, '--port', String(await freePort())],
    );
    const code = await running.exit;
    expect(code).not.toBe(0);
    expect(running.stderr()).toContain(data);
    expect(running.stderr()).toMatch(/full/);
  }, 60_000);

  it('refuses to start on a read-only data folder and names the folder', async () => {
    const vault = join(dir, 'vault');
    const data = join(dir, 'data');
    mkdirSync(vault);
    mkdirSync(data);
    running = startMounted(
      `mount -t tmpfs -o size=4m tmpfs '${data}'; mount -o remount,ro '${data}'`,
      ['--vault', vault, '--data', data, '--port', String(await freePort())],
    );
    const code = await running.exit;
    expect(code).not.toBe(0);
    expect(running.stderr()).toContain(data);
    expect(running.stderr()).toMatch(/read-only|not writable/);
  }, 60_000);

  it('a read-only vault answers 507 STORAGE_READ_ONLY, names the note, writes nothing', async () => {
    const vault = join(dir, 'vault');
    const data = join(dir, 'data');
    const seed = join(dir, 'seed');
    mkdirSync(join(seed, 'Inbox'), { recursive: true });
    cpSync(join(repoRoot, 'companion/sample-vault/Garden.md'), join(seed, 'Garden.md'));
    mkdirSync(vault);
    const port = await freePort();
    running = startMounted(
      `mount -t tmpfs -o size=4m tmpfs '${vault}'; cp -r '${seed}/.' '${vault}/'; mount -o remount,ro '${vault}'`,
      ['--vault', vault, '--data', data, '--port', String(port)],
    );
    const base = `http://127.0.0.1:${port}`;
    for (let attempt = 0; ; attempt++) {
      const ok = await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (running.child.exitCode !== null || attempt > 300) {
        throw new Error(`companion did not start:\n${running.stderr()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v1/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'Read only', body: 'words', folder: 'Inbox' }),
    });
    expect(created.status).toBe(507);
    const body = (await created.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('STORAGE_READ_ONLY');
    expect(body.error.message).toContain('Inbox/read-only.md');
    expect(body.error.message).not.toContain(vault);

    // The seed folder stands for what the vault held: nothing was added to it.
    expect(readdirSync(seed).sort()).toEqual(['Garden.md', 'Inbox']);
  }, 120_000);
});
