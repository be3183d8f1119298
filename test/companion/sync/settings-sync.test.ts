import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveVaultPath } from '../../../companion/vault/paths';
import { withSettingsPaths } from '../../../companion/vault/settings-paths';
import type { SyncChangesResponse, SyncOpResult } from '../../../shared/protocol/sync';
import { authorized, buildSyncTestApp } from './sync-app';
import type { SyncTestApp } from './sync-app';

/*
 * `.obsidian/` settings through the real companion (docs/sync.md "Settings"): only the sync
 * routes take them, only the files a category names, never a workspace file or Cairn's folder.
 */
let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

async function changes(query: string): Promise<SyncChangesResponse> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/v1/sync/changes?${query}`,
    headers: authorized,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as SyncChangesResponse;
}

const APPEARANCE = '{\n  "accentColor": "#7c3aed",\n  "theme": "obsidian"\n}';

describe('settings files on the sync routes', () => {
  it('journals the companion’s own settings files, never its workspace or Cairn’s data.json', async () => {
    t = await buildSyncTestApp({
      files: {
        'a.md': 'a\n',
        '.obsidian/appearance.json': APPEARANCE,
        '.obsidian/workspace.json': '{"main":{}}',
        '.obsidian/plugins/cairn/data.json': '{"companion":{"token":"secret"}}',
        '.obsidian/plugins/dataview/main.js': 'module.exports = {};\n',
        '.obsidian/plugins/dataview/node_modules/x.js': 'x\n',
        '.trash/old.md': 'old\n',
      },
    });
    const plain = await changes('since=0');
    expect(plain.changes.map((change) => change.path)).toEqual(['a.md']);
    const withSettings = await changes('since=0&settings=1');
    expect(withSettings.changes.map((change) => change.path).sort()).toEqual([
      '.obsidian/appearance.json',
      '.obsidian/plugins/dataview/main.js',
      'a.md',
    ]);
    // `next` is the same either way: a device that skips settings never misses a note.
    expect(plain.next).toBe(withSettings.next);
  });

  it('accepts a put of a synced settings file and writes it in the companion’s .obsidian/', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n' } });
    const hash = await t.upload(APPEARANCE);
    const answer = await t.commit('Laptop', [
      { path: '.obsidian/appearance.json', base: null, hash },
      { path: '.obsidian/hotkeys.json', base: null, hash },
    ]);
    expect(
      answer.results.map((result) => result.status),
      JSON.stringify(answer),
    ).toEqual(['accepted', 'accepted']);
    expect(readFileSync(join(t.vault, '.obsidian/appearance.json'), 'utf8')).toBe(APPEARANCE);
    const since = (await changes('since=0')).next;
    // Listed to devices asking for settings only.
    expect((await changes(`since=${since - 2}`)).changes).toEqual([]);
    expect(
      (await changes(`since=${since - 2}&settings=1`)).changes.map((change) => change.path),
    ).toEqual(['.obsidian/appearance.json', '.obsidian/hotkeys.json']);
  });

  it('rejects workspace files, Cairn’s folder and other hidden paths as INVALID_PATH', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n' } });
    const hash = await t.upload('{"x":1}');
    const paths = [
      '.obsidian/workspace.json',
      '.obsidian/workspace-mobile.json',
      '.obsidian/plugins/cairn/data.json',
      '.obsidian/plugins/dataview/.git/config',
      '.trash/note.md',
      '.OBSIDIAN/app.json',
    ];
    const answer = await t.commit(
      'Laptop',
      paths.map((path) => ({ path, base: null, hash })),
    );
    for (const [index, path] of paths.entries()) {
      const result = answer.results[index] as SyncOpResult;
      expect(result.status === 'rejected' && result.error.code, path).toBe('INVALID_PATH');
      expect(existsSync(join(t.vault, path)), path).toBe(false);
    }
  });

  it('refuses a settings path that is a symlink to Cairn’s data.json', async () => {
    t = await buildSyncTestApp({
      files: {
        'a.md': 'a\n',
        '.obsidian/plugins/cairn/data.json': '{"companion":{"token":"secret"}}',
      },
    });
    symlinkSync(
      join(t.vault, '.obsidian/plugins/cairn/data.json'),
      join(t.vault, '.obsidian/app.json'),
    );
    await t.sync.journal.rescan();
    const listed = await changes('since=0&settings=1');
    expect(listed.changes.map((change) => change.path)).toEqual(['a.md']);
    const hash = await t.upload('{"x":1}');
    const [result] = (await t.commit('Laptop', [{ path: '.obsidian/app.json', base: null, hash }]))
      .results as [SyncOpResult];
    expect(result.status).toBe('rejected');
    expect(readFileSync(join(t.vault, '.obsidian/plugins/cairn/data.json'), 'utf8')).toContain(
      'secret',
    );
  });

  it('refuses a move into or out of .obsidian/', async () => {
    t = await buildSyncTestApp({ files: { 'a.css': 'a {}\n' } });
    const [file] = (await changes('since=0')).changes;
    const [result] = (
      await t.commit('Laptop', [
        {
          file_id: file?.file_id ?? '',
          base: file?.hash ?? '',
          rename_to: '.obsidian/snippets/a.css',
        },
      ])
    ).results as [SyncOpResult];
    expect(result.status === 'rejected' && result.error.field).toBe('ops[0].rename_to');
    expect(existsSync(join(t.vault, 'a.css'))).toBe(true);
  });

  it('keeps a settings file out of "Deleted files" (its history stays)', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n', '.obsidian/app.json': '{}' } });
    const listed = await changes('since=0&settings=1');
    const ops = listed.changes.map((change) => ({
      file_id: change.file_id,
      base: change.hash,
      delete: true as const,
    }));
    // One at a time: two deletes of a two-file vault would be held as a mass delete.
    for (const op of ops) await t.commit('Laptop', [op]);
    const trash = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/trash',
      headers: authorized,
    });
    expect((trash.json() as { files: { path: string }[] }).files.map((f) => f.path)).toEqual([
      'a.md',
    ]);
    const history = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/history?path=${encodeURIComponent('.obsidian/app.json')}`,
      headers: authorized,
    });
    expect(history.statusCode).toBe(200);
  });

  it('makes a conflict copy instead of a line merge that breaks a JSON file', async () => {
    const base = '{\n  "a": 1\n}\n';
    t = await buildSyncTestApp({ files: { '.obsidian/app.json': base } });
    const [file] = (await changes('since=0&settings=1')).changes;
    const ours = await t.upload('{\n  "a": 1,\n  "b": 2\n}\n');
    const theirs = await t.upload('{\n  "a": 1,\n  "c": 3\n}\n');
    const op = { path: '.obsidian/app.json', file_id: file?.file_id, base: file?.hash ?? null };
    await t.commit('Laptop', [{ ...op, hash: theirs }]);
    const [result] = (await t.commit('Phone', [{ ...op, hash: ours }])).results as [SyncOpResult];
    expect(result.status).toBe('conflict');
    const text = readFileSync(join(t.vault, '.obsidian/app.json'), 'utf8');
    expect(() => JSON.parse(text) as unknown).not.toThrow();
  });
});

describe('everything but sync refuses the settings folder', () => {
  it('resolveVaultPath refuses .obsidian/ outside the sync scope, and the never-list inside it', async () => {
    t = await buildSyncTestApp({ files: { '.obsidian/app.json': '{}' } });
    expect((await resolveVaultPath(t.vault, '.obsidian/app.json')).ok).toBe(false);
    expect(
      (await withSettingsPaths(() => resolveVaultPath(t.vault, '.obsidian/app.json'))).ok,
    ).toBe(true);
    for (const path of [
      '.obsidian/workspace.json',
      '.obsidian/plugins/cairn/data.json',
      '.git/x',
    ]) {
      expect((await withSettingsPaths(() => resolveVaultPath(t.vault, path))).ok).toBe(false);
    }
  });
});
