import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompanionConnection } from '../../../companion/commands/connection-shapes';
import { parseVaultCommand, runVaultCommand } from '../../../companion/commands/vault-commands';
import type { ParsedVaultCommand } from '../../../companion/commands/vault-commands';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * `cairn-companion import FILE` over the real app (the connection injects into it as the CLI's
 * HTTP connection would request): the fixtures in the real Kindle and Firefox formats.
 */

const FIXTURES = join(__dirname, '../../fixtures/import');
let test: TestApp;
let stdout: string[];
let stderr: string[];

beforeEach(async () => {
  test = await buildTestApp();
  stdout = [];
  stderr = [];
});
afterEach(async () => {
  await test.close();
});

async function run(argv: string[]): Promise<number> {
  const parsed = parseVaultCommand('import', argv);
  if (typeof parsed === 'string') throw new Error(parsed);
  const connection: CompanionConnection = {
    kind: 'server',
    async request(method, path, body) {
      const response = await test.app.inject({
        method,
        url: path,
        headers: authorized,
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: response.json() as unknown };
    },
    async close() {},
  };
  return runVaultCommand('import', parsed as ParsedVaultCommand, {
    io: {
      env: {},
      stdout: (text) => stdout.push(text),
      stderr: (text) => stderr.push(text),
      stdoutIsTty: false,
      stdinIsTty: false,
      readStdin: async () => '',
      question: async () => '',
    },
    clock: test.clock,
    zone: 'Europe/Berlin',
    connect: async () => connection,
  });
}

describe('cairn-companion import', () => {
  it('imports My Clippings.txt as kindle by its name, one note per book', async () => {
    expect(await run([join(FIXTURES, 'My Clippings.txt')])).toBe(0);
    expect(stdout.join('')).toContain('Imported 2 notes from My Clippings.txt.');
    expect(readdirSync(join(test.dir, 'vault/Imports/Kindle'))).toHaveLength(2);
  });

  it('--dry-run shows the first note and writes nothing', async () => {
    expect(await run([join(FIXTURES, 'bookmarks-firefox.html'), '--dry-run'])).toBe(0);
    expect(stdout.join('')).toContain('Would create Imports/Bookmarks/');
    expect(stdout.join('')).toContain('+[Get Help](https://support.mozilla.org/products/firefox)');
    expect(existsSync(join(test.dir, 'vault/Imports'))).toBe(false);
  });

  it('a file of unknown kind is a usage error', async () => {
    expect(await run([join(FIXTURES, 'My Clippings.txt').replace('.txt', '.csv')])).toBe(2);
    expect(stderr.join('')).toContain('--kind');
  });
});
