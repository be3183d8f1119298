import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../companion/auth/token-store';
import { runPairCommand } from '../../../companion/commands/pair-command';
import { openDatabase } from '../../../companion/db/open';
import { DATABASE_FILE } from '../../../companion/server';
import { parseSyncPairingLink } from '../../../shared/protocol/sync-pairing';
import { tempDir } from '../helpers/app';

let dir: ReturnType<typeof tempDir> | undefined;
afterEach(() => {
  dir?.remove();
  dir = undefined;
});

function run(flags: { name?: string; url?: string }) {
  dir ??= tempDir('pair');
  const dataDir = join(dir.path, 'data');
  mkdirSync(dataDir, { recursive: true });
  const out: string[] = [];
  const err: string[] = [];
  const code = runPairCommand(
    flags,
    { dataDir, host: '127.0.0.1', port: 8787, tls: null },
    { out: (text) => out.push(text), err: (text) => err.push(text), now: () => 1_795_000_000_000 },
  );
  return { code, out, err, dataDir };
}

describe('cairn-companion pair', () => {
  it('prints a QR code and a link whose token is stored, named after the device', async () => {
    const { code, out, dataDir } = run({ name: 'Pixel 8', url: 'https://nas.tail1234.ts.net' });
    expect(await code).toBe(0);
    const text = out.join('');
    const link = /obsidian:\/\/cairn-sync-pair\?\S+/.exec(text)?.[0] ?? '';
    const parsed = parseSyncPairingLink(link);
    expect(parsed.ok && parsed.pairing.device).toBe('Pixel 8');
    expect(text).toMatch(/[▀▄█]/); // the terminal QR code
    expect(text).not.toContain('Warning');
    const db = openDatabase(join(dataDir, DATABASE_FILE));
    try {
      expect(new TokenStore(db).list()).toMatchObject([
        { name: 'sync-Pixel-8', scopes: ['read', 'write', 'sync'] },
      ]);
    } finally {
      db.close();
    }
  });

  it('defaults to the companion address and says when it is plain http off this machine', async () => {
    const local = run({ name: 'Laptop' });
    expect(await local.code).toBe(0);
    expect(local.out.join('')).toContain('http://127.0.0.1:8787');
    expect(local.out.join('')).not.toContain('Warning');
    const lan = run({ name: 'Phone', url: 'http://192.168.1.20:8787' });
    expect(await lan.code).toBe(0);
    expect(lan.out.join('')).toMatch(/Warning: .*plain http/);
  });

  it('refuses a missing or reserved name with usage', async () => {
    const missing = run({});
    expect(await missing.code).toBe(2);
    expect(missing.err.join('')).toContain('needs --name');
    const reserved = run({ name: 'server' });
    expect(await reserved.code).toBe(2);
    expect(reserved.err.join('')).toContain("companion's own name");
  });
});
