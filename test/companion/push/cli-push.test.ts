import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/corpora';
import { FakePushService } from '../../fakes/push-service';

/*
 * The whole path in a real companion process: the CLI bundle started with CAIRN_PUSH_HOSTS and
 * NODE_EXTRA_CA_CERTS (Node's own variable, docs/delivery.md) pointing at the local push service's
 * self-signed certificate. No test agent is injected: the companion's default outgoing TLS must
 * trust that certificate through the variable alone, and reject it without.
 */

const TOKEN = 'push-e2e-token-0123456789abcdefghijklmnopq';

let bundleDir: string;
let work: string;
let service: FakePushService;

beforeAll(async () => {
  // Inside the repo (under the ignored dist/) so the bundle's packages resolve from node_modules.
  mkdirSync(join(repoRoot, 'dist'), { recursive: true });
  bundleDir = mkdtempSync(join(repoRoot, 'dist', 'push-e2e-'));
  await build({
    entryPoints: [join(repoRoot, 'companion/cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: join(bundleDir, 'cli.mjs'),
    logLevel: 'silent',
    banner: {
      js: "import { createRequire as __cairnCreateRequire } from 'node:module'; const require = __cairnCreateRequire(import.meta.url);",
    },
  });
  work = mkdtempSync(join(tmpdir(), 'cairn-push-e2e-'));
  service = await FakePushService.start();
});

afterAll(async () => {
  await service?.close();
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Companion {
  readonly base: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

async function startCompanion(name: string, extraEnv: Record<string, string>): Promise<Companion> {
  const vault = join(work, name, 'vault');
  mkdirSync(vault, { recursive: true });
  const port = await freePort();
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('CAIRN_') && key !== 'NODE_EXTRA_CA_CERTS',
    ),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(bundleDir, 'cli.mjs'),
      '--vault',
      vault,
      '--data',
      join(work, name, 'data'),
      '--port',
      String(port),
    ],
    {
      env: {
        ...env,
        CAIRN_TOKEN: TOKEN,
        CAIRN_PUSH_HOSTS: '127.0.0.1',
        // Keyword-only: an Ollama that is not there makes the start fast and model-free.
        CAIRN_EMBEDDINGS: 'ollama',
        CAIRN_OLLAMA_URL: `http://127.0.0.1:${await freePort()}`,
        CAIRN_LOG_LEVEL: 'debug',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`companion exited early:\n${output}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 300) throw new Error(`companion did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function subscribeAndTest(companion: Companion): Promise<{ sent: number; failed: number }> {
  const browser = service.createSubscription();
  const added = await fetch(`${companion.base}/api/v1/push/subscriptions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...browser, name: 'E2E phone' }),
  });
  expect(added.status, companion.output()).toBe(201);
  const test = await fetch(`${companion.base}/api/v1/push/test`, {
    method: 'POST',
    headers,
    body: '{}',
  });
  expect(test.status, companion.output()).toBe(200);
  return (await test.json()) as { sent: number; failed: number };
}

describe('the companion process sending Web Push', () => {
  it('trusts the push service through NODE_EXTRA_CA_CERTS and delivers a decryptable message', async () => {
    const companion = await startCompanion('trusted', { NODE_EXTRA_CA_CERTS: service.certFile });
    try {
      const before = service.messages.length;
      expect(await subscribeAndTest(companion)).toEqual({ sent: 1, failed: 0 });
      const message = service.messages.at(-1);
      expect(service.messages.length).toBe(before + 1);
      expect(message?.vapid.valid).toBe(true);
      expect(message?.urgency).toBe('high');
      expect(JSON.parse(message?.payload ?? 'null')).toMatchObject({
        title: 'Cairn test notification',
      });
      // The key the companion serves is the one that signed.
      const key = await fetch(`${companion.base}/api/v1/push/key`, { headers });
      expect(((await key.json()) as { public_key: string }).public_key).toBe(
        message?.vapid.publicKey,
      );
    } finally {
      await companion.stop();
    }
    // Debug logs mention the delivery but never the endpoint path or keys.
    expect(companion.output()).toContain('push message accepted');
    expect(companion.output()).not.toContain('/push/v2/');
  });

  it('without NODE_EXTRA_CA_CERTS the self-signed push service is not trusted (counted as failed)', async () => {
    const companion = await startCompanion('untrusted', {});
    try {
      const before = service.messages.length;
      expect(await subscribeAndTest(companion)).toEqual({ sent: 0, failed: 1 });
      expect(service.messages.length).toBe(before);
    } finally {
      await companion.stop();
    }
    expect(companion.output()).toMatch(/push message will be retried/);
    expect(companion.output()).toMatch(/SELF_SIGNED|self.signed|unable to verify/i);
  });
});
