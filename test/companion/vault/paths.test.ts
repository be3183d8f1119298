import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveVaultPath } from '../../../companion/vault/paths';
import { copySampleVault, tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
let vault: string;
let outside: string;

beforeAll(() => {
  dir = tempDir('paths');
  vault = copySampleVault(dir.path);
  outside = join(dir.path, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.md'), 'not yours');
  symlinkSync(outside, join(vault, 'Linked out'));
  symlinkSync(join(outside, 'secret.md'), join(vault, 'secret-link.md'));
  symlinkSync(join(dir.path, 'nowhere'), join(vault, 'dangling.md'));
  symlinkSync(join(vault, 'Travel'), join(vault, 'Travel shortcut'));
  // Ordinary-looking names leading into the config folder (which holds the plugin's token).
  mkdirSync(join(vault, '.obsidian/plugins/cairn'), { recursive: true });
  writeFileSync(join(vault, '.obsidian/plugins/cairn/data.json'), '{"companionToken":"x"}');
  symlinkSync('../.obsidian/plugins/cairn/data.json', join(vault, 'Projects/settings-link.md'));
  symlinkSync('../.obsidian', join(vault, 'Projects/config'));
  // macOS stores names decomposed: "Café" as C-a-f-e + U+0301.
  writeFileSync(join(vault, 'Cafe\u0301 notes.md'), '# Café');
});
afterAll(() => dir.remove());

describe('resolveVaultPath: the rejection corpus (security anchors)', () => {
  it.each([
    ['parent escape', '../x.md', '"." or ".."'],
    ['encoded slash', '..%2fx.md', 'percent-encoded'],
    ['encoded dots', '%2e%2e/x.md', 'percent-encoded'],
    ['backslash escape', '..\\x.md', 'backslash'],
    ['absolute path', '/etc/passwd', 'absolute'],
    ['drive letter', 'C:\\x', 'absolute'],
    ['drive letter with slash', 'C:/x.md', 'absolute'],
    ['NUL byte', 'x.md\u0000.png', 'NUL'],
    ['encoded NUL', 'x.md%00.png', 'percent-encoded'],
    ['climbing after descending', 'a/../../b', '"." or ".."'],
    ['staying inside via ..', 'Travel/../Welcome.md', '"." or ".."'],
    ['dot segment', './Welcome.md', '"." or ".."'],
    ['double slash', 'Travel//Visa rules.md', 'empty segment'],
    ['trailing slash', 'Travel/', 'empty segment'],
    ['empty', '', 'is empty'],
    ['config folder', '.obsidian/plugins/cairn/data.json', 'hidden'],
    ['plugin code', '.obsidian/plugins/cairn/main.js', 'hidden'],
    ['hidden folder deeper', 'Travel/.git/config', 'hidden'],
    ['control character', 'Travel/\u001bVisa.md', 'control'],
    ['too long', `${'a/'.repeat(600)}x.md`, 'longer than'],
  ])('%s', async (_case, path, reason) => {
    for (const access of ['read', 'write'] as const) {
      const result = await resolveVaultPath(vault, path, access);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain(reason);
    }
  });

  it.each([
    ['a symlinked folder pointing outside', 'Linked out/secret.md'],
    ['a symlinked file pointing outside', 'secret-link.md'],
    ['a new file under a symlinked folder', 'Linked out/new.md'],
    ['a dangling symlink', 'dangling.md'],
  ])('refuses %s', async (_case, path) => {
    const result = await resolveVaultPath(vault, path, 'write');
    expect(result).toEqual({
      ok: false,
      reason: `path ${JSON.stringify(path)}: leads outside the vault (through a symlink)`,
    });
  });

  it.each([
    ['a symlinked file into .obsidian/', 'Projects/settings-link.md'],
    ['a file under a symlinked folder into .obsidian/', 'Projects/config/plugins/cairn/data.json'],
    ['a new file under a symlinked folder into .obsidian/', 'Projects/config/new.md'],
  ])('refuses %s, for reads and writes', async (_case, path) => {
    for (const access of ['read', 'write'] as const) {
      const result = await resolveVaultPath(vault, path, access);
      expect(result).toEqual({
        ok: false,
        reason: `path ${JSON.stringify(path)}: leads into a hidden file or folder (such as .obsidian/) through a symlink`,
      });
    }
  });

  it('refuses a path through a file', async () => {
    const result = await resolveVaultPath(vault, 'Welcome.md/x.md');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('Welcome.md is not a folder');
  });
});

describe('resolveVaultPath: accepted paths', () => {
  it('resolves an existing note', async () => {
    const result = await resolveVaultPath(vault, 'Travel/Visa rules.md');
    expect(result).toMatchObject({ ok: true, relative: 'Travel/Visa rules.md', exists: true });
    if (result.ok) expect(result.absolute).toBe(join(vault, 'Travel', 'Visa rules.md'));
  });

  it('resolves a new note in a new folder for writing', async () => {
    const result = await resolveVaultPath(vault, 'Cairn/Notes/New idea.md', 'write');
    expect(result).toMatchObject({ ok: true, relative: 'Cairn/Notes/New idea.md', exists: false });
  });

  it('follows a symlink that stays inside the vault', async () => {
    const result = await resolveVaultPath(vault, 'Travel shortcut/Lisbon trip.md');
    expect(result).toMatchObject({ ok: true, exists: true });
    if (result.ok) expect(result.absolute).toBe(join(vault, 'Travel', 'Lisbon trip.md'));
  });

  it('keeps file names that merely contain a percent sign or dots', async () => {
    const result = await resolveVaultPath(vault, 'Projects/100% done...v2.md', 'write');
    expect(result).toMatchObject({ ok: true, relative: 'Projects/100% done...v2.md' });
  });

  it('matches an NFC path to the NFD name on disk instead of creating a twin', async () => {
    const nfc = 'Caf\u00e9 notes.md';
    const result = await resolveVaultPath(vault, nfc, 'write');
    expect(result).toMatchObject({ ok: true, exists: true, relative: 'Cafe\u0301 notes.md' });
  });

  it('refuses a new name that differs from an existing one only in case (writes)', async () => {
    const result = await resolveVaultPath(vault, 'travel/new.md', 'write');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.reason).toContain('"Travel" already exists with different letter case');
    // Reading it is merely "not found" on a case-sensitive disk, not a conflict.
    expect(await resolveVaultPath(vault, 'travel/new.md', 'read')).toMatchObject({
      ok: true,
      exists: false,
    });
  });
});
