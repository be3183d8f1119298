import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  PathRuleError,
  parsePathRules,
  pathAllowed,
  withPathRules,
} from '../../../companion/auth/path-rules';
import { TokenStore } from '../../../companion/auth/token-store';
import { sha256 } from '../../../companion/auth/token';
import { runTokenCommand } from '../../../companion/commands/token-command';
import { openDatabase } from '../../../companion/db/open';
import { DATABASE_FILE } from '../../../companion/server';
import { resolveVaultPath } from '../../../companion/vault/paths';
import { SAMPLE_VAULT, tempDir } from '../helpers/app';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('path-rules');
});
afterEach(() => {
  dir.remove();
});

describe('parsePathRules and pathAllowed', () => {
  it('reads folders with or without the trailing slash, once each', () => {
    expect(parsePathRules('Work/, Projects/Cairn ,Work')).toEqual(['Work', 'Projects/Cairn']);
    expect(parsePathRules(['Travel/'])).toEqual(['Travel']);
  });

  it('refuses what is not a folder inside the vault, naming it', () => {
    for (const [bad, why] of [
      ['', /no folder given/],
      ['/etc', /absolute/],
      ['Work/../Private', /"\.\."/],
      ['.obsidian', /hidden/],
      ['Work\\Old', /"\\"/],
    ] as const) {
      expect(() => parsePathRules(bad), bad).toThrow(PathRuleError);
      expect(() => parsePathRules(bad), bad).toThrow(why);
    }
  });

  it('allows the folder and what is inside it, nothing with the same prefix', () => {
    const rules = ['Work'];
    expect(pathAllowed(rules, 'Work')).toBe(true);
    expect(pathAllowed(rules, 'Work/Plans/Q1.md')).toBe(true);
    expect(pathAllowed(rules, 'Workshop/Bench.md')).toBe(false);
    expect(pathAllowed(rules, 'Garden.md')).toBe(false);
    expect(pathAllowed(undefined, 'Garden.md')).toBe(true);
  });

  it('resolveVaultPath refuses reads and writes outside the rules of the request, as forbidden', async () => {
    const outside = await withPathRules(['Travel'], () =>
      resolveVaultPath(SAMPLE_VAULT, 'Garden.md', 'read'),
    );
    expect(outside).toMatchObject({ ok: false, forbidden: true });
    const inside = await withPathRules(['Travel'], () =>
      resolveVaultPath(SAMPLE_VAULT, 'Travel/Visa rules.md', 'write'),
    );
    expect(inside).toMatchObject({ ok: true, exists: true });
    // Outside the binding, the whole vault again.
    expect(await resolveVaultPath(SAMPLE_VAULT, 'Garden.md', 'read')).toMatchObject({ ok: true });
  });
});

describe('tokens with path rules', () => {
  it('are stored with the token (migration 015) and come back with its identity', () => {
    const db = openDatabase(join(dir.path, 'cairn.db'));
    try {
      const store = new TokenStore(db);
      const { token, stored } = store.create('work', ['read', 'write'], 5, ['Work/']);
      expect(stored).toEqual({
        name: 'work',
        scopes: ['read', 'write'],
        paths: ['Work'],
        createdAt: 5,
      });
      expect(store.identify(sha256(token))).toEqual({
        tokenName: 'work',
        scopes: ['read', 'write'],
        paths: ['Work'],
      });
      const plain = store.create('laptop', ['read'], 6).token;
      expect(store.identify(sha256(plain))).toEqual({ tokenName: 'laptop', scopes: ['read'] });
      expect(() => store.create('bad', ['read'], 7, ['../x'])).toThrow(/"\.\."/);
      expect(() => store.create('sync', ['sync'], 7, ['Work'])).toThrow(/sync scope/);
      expect(store.list().map((t) => t.name)).toEqual(['laptop', 'work']);
    } finally {
      db.close();
    }
  });

  it('cairn-companion token create --paths stores them; list shows them; bad ones exit 2', () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t), now: () => 0 };
    expect(
      runTokenCommand(
        ['create'],
        { name: 'work', scope: 'read,write', paths: 'Work/' },
        dir.path,
        io,
      ),
    ).toBe(0);
    expect(out.join('')).toContain('Token "work" (read, write, only Work/)');
    expect(runTokenCommand(['list'], {}, dir.path, io)).toBe(0);
    expect(out.join('')).toMatch(/work\tread, write\tonly Work\/\tcreated/);
    expect(
      runTokenCommand(['create'], { name: 'x', scope: 'read', paths: '.obsidian' }, dir.path, io),
    ).toBe(2);
    expect(err.join('')).toContain('--paths: path rule ".obsidian" names a hidden folder');
    expect(runTokenCommand(['list'], { paths: 'Work' }, dir.path, io)).toBe(2);

    const db = openDatabase(join(dir.path, DATABASE_FILE));
    try {
      const row = db.prepare("SELECT paths FROM api_tokens WHERE name = 'work'").get();
      expect(row).toEqual({ paths: '["Work"]' });
    } finally {
      db.close();
    }
  });
});
