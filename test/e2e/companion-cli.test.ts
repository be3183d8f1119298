import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VaultReminderSource } from '../../companion/reminders/vault-reminder-source';
import { formatInZone, nextOccurrences } from '../../shared/reminders';
import { buildCompanionOnce } from '../helpers/companion-build';
import { repoRoot } from '../helpers/corpora';

const CLI = join(repoRoot, 'dist/companion/cli.mjs');

/** The environment without the caller's CAIRN_* settings, so only what a test sets counts. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
  );
  return { ...env, ...extra };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * What the scheduler should report for a vault read fresh at `now` (the first start of a data
 * folder fires nothing before it): the reminders with an occurrence still ahead, and the first.
 */
async function expectedSchedule(
  vaultPath: string,
  now: number,
): Promise<{ reminders: number; next_fire: string | null }> {
  const source = new VaultReminderSource({ vault: vaultPath, defaultZone: 'Europe/Berlin' });
  await source.load();
  let reminders = 0;
  let first: { at: number; zone: string } | undefined;
  for (const { schedule, status, taskChecked } of source.all().reminders) {
    if (status !== 'active' || taskChecked) continue;
    const next =
      schedule.kind === 'once'
        ? schedule.at > now
          ? schedule.at
          : undefined
        : nextOccurrences(schedule, now, schedule.zone, 1)[0];
    if (next === undefined) continue;
    reminders += 1;
    if (!first || next < first.at) first = { at: next, zone: schedule.zone };
  }
  return { reminders, next_fire: first ? formatInZone(first.at, first.zone) : null };
}

interface Running {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

function startCli(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Polls /health until it answers; fails with the process output if the CLI dies first. */
async function waitForHealth(running: Running, base: string): Promise<void> {
  let exited = false;
  void running.exit.then(() => (exited = true));
  for (let attempt = 0; attempt < 300; attempt++) {
    if (exited)
      throw new Error(`companion exited early:\n${running.stdout()}\n${running.stderr()}`);
    try {
      const response = await fetch(`${base}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`companion did not become healthy:\n${running.stdout()}\n${running.stderr()}`);
}

async function stop(running: Running): Promise<number | null> {
  running.child.kill('SIGTERM');
  return running.exit;
}

beforeAll(async () => {
  // Build the companion bundle from the current sources, once per run (companion-build.ts).
  await buildCompanionOnce();
});

let work: string;
let vault: string;
let dataDir: string;
let running: Running | null = null;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'cairn-e2e-cli-'));
  vault = join(work, 'vault');
  dataDir = join(work, 'data');
  cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });
});

afterEach(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exit;
  }
  running = null;
  rmSync(work, { recursive: true, force: true });
});

describe('cairn-companion CLI', () => {
  it('starts on the sample vault, prints the token once, serves status, stops on SIGTERM with 0', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const args = ['--vault', vault, '--data', dataDir, '--port', String(port)];

    running = startCli(args, cleanEnv());
    await waitForHealth(running, base);
    const token = /API token \(shown only now[^\n]*\n\s+(\S+)/.exec(running.stdout())?.[1];
    expect(token, running.stdout()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(running.stdout()).toContain(`listening on ${base}`);
    expect(running.stdout()).toContain(`data folder: ${dataDir}`);
    expect(running.stdout()).toContain('time zone: Europe/Berlin'); // from the vault's data.json

    expect((await fetch(`${base}/api/v1/status`)).status).toBe(401);
    const status = await fetch(`${base}/api/v1/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(status.status).toBe(200);
    const expected = await expectedSchedule(vault, Date.now());
    // The sample vault's reminders are real: several are ahead of any date this test runs on.
    expect(expected.reminders).toBeGreaterThan(0);
    expect(await status.json()).toMatchObject({
      scheduler: expected,
      push: { subscriptions: 0 },
    });
    // The index fills in the background: every sample note indexed, then embedded by USE-lite.
    let index: {
      files: number;
      chunks: number;
      pending: number;
      failed: unknown[];
      embedding: unknown;
    };
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const response = await fetch(`${base}/api/v1/status`, {
        headers: { authorization: `Bearer ${token}` },
      });
      index = ((await response.json()) as { index: typeof index }).index;
    } while (
      (index.files < 9 || index.pending > 0 || index.embedding === null) &&
      Date.now() < deadline
    );
    // The 8 sample notes and the weekly digest task the first start created (docs/tasks.md).
    expect(index).toMatchObject({ files: 9, pending: 0, failed: [], embedding: { dims: 512 } });
    expect(index.chunks).toBeGreaterThanOrEqual(8);
    // The built-in embedding model runs in its worker thread from the built bundle.
    const models = await fetch(`${base}/v1/models`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(models.status, running.stderr()).toBe(200);
    // `cairn` (the chat model of /v1/chat/completions) comes first, then the embedding model.
    expect(await models.json()).toMatchObject({ data: [{ id: 'cairn' }, { dims: 512 }] });
    expect(await stop(running)).toBe(0);
    expect(running.stderr()).not.toContain(token);

    // Second start on the same data folder: same token, not printed again.
    running = startCli(args, cleanEnv());
    await waitForHealth(running, base);
    expect(running.stdout()).not.toContain(token);
    expect(running.stdout()).toContain(`API token: stored in ${join(dataDir, 'token')}`);
    const again = await fetch(`${base}/api/v1/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.status).toBe(200);
    expect(await stop(running)).toBe(0);
  });

  it('uses CAIRN_* variables, CAIRN_TOKEN included, and stops on SIGINT with 0', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const token = 'a-token-from-the-environment-1234';
    running = startCli(
      [],
      cleanEnv({
        CAIRN_VAULT: vault,
        CAIRN_DATA: dataDir,
        CAIRN_PORT: String(port),
        CAIRN_TOKEN: token,
        CAIRN_TIMEZONE: 'America/New_York',
      }),
    );
    await waitForHealth(running, base);
    expect(running.stdout()).toContain('API token: from CAIRN_TOKEN');
    expect(running.stdout()).toContain('time zone: America/New_York');
    const status = await fetch(`${base}/api/v1/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(status.status).toBe(200);
    running.child.kill('SIGINT');
    expect(await running.exit).toBe(0);
  });

  it('exits 1 with a clear message when the port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      running = startCli(['--vault', vault, '--data', dataDir, '--port', String(port)], cleanEnv());
      expect(await running.exit).toBe(1);
      expect(running.stderr()).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('--help exits 0 and lists every flag with its variable', () => {
    const result = spawnSync(process.execPath, [CLI, '--help'], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    expect(result.status).toBe(0);
    for (const text of [
      '--vault',
      '--port',
      'CAIRN_PORT',
      '--data',
      'CAIRN_TOKEN',
      '8787',
      '--push-subject',
      'CAIRN_PUSH_SUBJECT',
    ]) {
      expect(result.stdout).toContain(text);
    }
  });

  it('--version prints the package version', () => {
    const result = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--port', '70000'], '--port: 70000 is not a port (1–65535)'],
    [[], '--vault: required'],
    [['--push-subject', 'ops@example.com'], '--push-subject: "ops@example.com": not a URL'],
  ])('usage errors exit 2: %j', (args, message) => {
    const result = spawnSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('--rotate-token with CAIRN_TOKEN set is a usage error (the variable would win)', () => {
    const result = spawnSync(
      process.execPath,
      [CLI, '--vault', vault, '--data', dataDir, '--rotate-token'],
      {
        encoding: 'utf8',
        env: cleanEnv({ CAIRN_TOKEN: 'a-token-from-the-environment-1234' }),
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('CAIRN_TOKEN is set and wins');
  });
});
