import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteMemory } from '../../../companion/idempotency/write-memory';
import type { VaultIndexer } from '../../../companion/search/vault-indexer';
import { parseFrontMatter } from '../../../shared/markdown';
import type { ManualClock } from '../../fakes/clock';
import { authorized, buildIndexedTestApp } from '../helpers/app';
import type { IndexedTestApp } from '../helpers/app';

let app: FastifyInstance;
let vault: string;
let clock: ManualClock;
let indexer: VaultIndexer;

let testApp: IndexedTestApp;

beforeEach(async () => {
  testApp = await buildIndexedTestApp('notes');
  ({ app, vault, indexer } = testApp);
  clock = testApp.clock;
});
afterEach(() => testApp.close());

const post = (payload: unknown) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: authorized,
    payload: payload as object,
  });

describe('POST /api/v1/notes', () => {
  it('writes a docs/vault-format.md note, indexed at once', async () => {
    const response = await post({
      title: 'Visa rules summary',
      body: '- valid 90 days\n- requires passport photo\n',
      tags: ['visa', '#travel'],
    });
    expect(response.statusCode).toBe(201);
    const created = response.json() as { id: string; path: string; deduplicated: boolean };
    expect(created).toMatchObject({
      path: 'Cairn/Notes/visa-rules-summary.md',
      title: 'Visa rules summary',
      deduplicated: false,
    });
    const text = readFileSync(join(vault, created.path), 'utf8');
    const front = parseFrontMatter(text);
    expect(front.ok && front.data).toEqual({
      id: created.id,
      title: 'Visa rules summary',
      tags: ['visa', 'travel'],
      created: '2026-11-22T10:30:00+01:00',
      updated: '2026-11-22T10:30:00+01:00',
      source: 'api',
    });
    expect(text.endsWith('---\n- valid 90 days\n- requires passport photo\n')).toBe(true);
    expect(indexer.store.fileState(created.path)).toBeDefined();
  });

  it('deduplicates the same note within 5 minutes, never a different body', async () => {
    const first = (await post({ title: 'Groceries', body: 'milk' })).json() as { path: string };
    const again = await post({ title: '  groceries ', body: 'milk' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ path: first.path, deduplicated: true });
    // Same title, new words: a second note, the words kept.
    const other = await post({ title: 'Groceries', body: 'eggs' });
    expect(other.statusCode).toBe(201);
    const otherPath = (other.json() as { path: string }).path;
    expect(otherPath).toMatch(/^Cairn\/Notes\/groceries-[0-9a-f]{4}\.md$/);
    expect(readFileSync(join(vault, otherPath), 'utf8')).toContain('eggs');
    clock.advance(5 * 60_000 + 1);
    const later = await post({ title: 'Groceries', body: 'milk' });
    expect(later.statusCode).toBe(201);
    expect(readdirSync(join(vault, 'Cairn/Notes')).sort()).toHaveLength(3);
  });

  it('writes into a given folder, creating it; refuses folders outside the vault', async () => {
    const ok = await post({ title: 'Plan', body: '', folder: 'Projects/New' });
    expect(ok.statusCode).toBe(201);
    expect((ok.json() as { path: string }).path).toBe('Projects/New/plan.md');
    for (const folder of ['../outside', '.obsidian', 'a//b', '/abs']) {
      const bad = await post({ title: 'x', body: '', folder });
      expect(bad.statusCode, folder).toBe(400);
    }
  });

  it('refuses folder names that break other platforms with 400 naming the folder', async () => {
    const folders = [
      'con',
      'Projects/aux.md',
      'LPT1',
      'x*?<>|',
      'a:b',
      'trailing.',
      'trailing ',
      '\uff0e\uff0e', // full-width dots: ".." once folded
      'evil\u202egpj.md', // right-to-left override
      'x'.repeat(256),
      'é'.repeat(128), // 256 bytes in UTF-8
    ];
    const vaultTopLevel = readdirSync(vault).filter((name) => !name.startsWith('.'));
    for (const folder of folders) {
      const bad = await post({ title: 'x', body: '', folder });
      expect(bad.statusCode, folder).toBe(400);
      expect(bad.json(), folder).toMatchObject({
        error: { code: 'VALIDATION_ERROR', field: 'folder' },
      });
    }
    expect(readdirSync(vault).filter((name) => !name.startsWith('.'))).toEqual(vaultTopLevel);
  });

  it('refuses bad input naming the field and writes nothing', async () => {
    const cases: Array<[unknown, number, string | undefined]> = [
      [{}, 400, undefined],
      [{ title: '', body: 'x' }, 400, undefined],
      [{ title: 'x' }, 400, undefined],
      [{ title: 'x', body: 'x', extra: 1 }, 400, undefined],
      [{ title: 'x', body: 'y'.repeat(1_000_001) }, 400, undefined],
      [{ title: 'x', body: 'y'.repeat(1_100_000) }, 413, undefined],
      [{ title: 'a\u0007b', body: 'x' }, 422, 'title'],
      [{ title: 'x', body: 'x', tags: ['has space'] }, 400, undefined],
      [{ title: 'x', body: 'x', tags: ['123'] }, 422, 'tags'],
    ];
    for (const [payload, status, field] of cases) {
      const response = await post(payload);
      expect(response.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(status);
      if (field) expect((response.json() as { error: { field: string } }).error.field).toBe(field);
    }
    expect(() => readdirSync(join(vault, 'Cairn/Notes'))).toThrow();
  });

  it('keeps a title with YAML markup on one safe line', async () => {
    const response = await post({ title: 'a: b "c" --- #d [[e]]', body: 'x' });
    expect(response.statusCode).toBe(201);
    const created = response.json() as { path: string; title: string };
    const front = parseFrontMatter(readFileSync(join(vault, created.path), 'utf8'));
    expect(front.ok && front.data.title).toBe('a: b "c" --- #d [[e]]');
  });
});

describe('POST /api/v1/notes when its record cannot be stored (the data disk is full)', () => {
  const full = () => {
    throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
  };
  const original = WriteMemory.prototype.remember;
  let stored = 0;
  const notes = () =>
    existsSync(join(vault, 'Cairn/Notes')) ? readdirSync(join(vault, 'Cairn/Notes')) : [];

  it('every 507 leaves no note, and the retries once space returns write one', async () => {
    const before = notes();
    const remember = vi.spyOn(WriteMemory.prototype, 'remember').mockImplementation(full);
    for (let i = 0; i < 3; i++) {
      const response = await post({ title: 'Retry me', body: 'text' });
      expect(response.statusCode).toBe(507);
      expect(response.json()).toMatchObject({ error: { code: 'STORAGE_FULL' } });
    }
    expect(notes()).toEqual(before);
    remember.mockRestore();
    expect((await post({ title: 'Retry me', body: 'text' })).statusCode).toBe(201);
    expect((await post({ title: 'Retry me', body: 'text' })).statusCode).toBe(200);
    expect(notes().filter((name) => !before.includes(name))).toEqual(['retry-me.md']);
    expect(indexer.store.fileState('Cairn/Notes/retry-me.md')).toBeDefined();
  });

  it('a 507 on the Idempotency-Key record leaves no note; the keyed retry writes one', async () => {
    const before = notes();
    vi.spyOn(WriteMemory.prototype, 'remember')
      .mockImplementationOnce(function (this: WriteMemory, ...args) {
        stored += 1;
        original.call(this, ...args);
      })
      .mockImplementationOnce(full);
    const keyed = () =>
      app.inject({
        method: 'POST',
        url: '/api/v1/notes',
        headers: { ...authorized, 'idempotency-key': 'note-1' },
        payload: { title: 'Keyed', body: 'text' },
      });
    expect((await keyed()).statusCode).toBe(507);
    expect(stored).toBe(1); // the dedup record was stored; the key's answer was not
    expect(notes()).toEqual(before);
    expect(indexer.store.fileState('Cairn/Notes/keyed.md')).toBeUndefined();
    expect((await keyed()).statusCode).toBe(201);
    expect((await keyed()).statusCode).toBe(201);
    expect(notes().filter((name) => !before.includes(name))).toEqual(['keyed.md']);
    vi.restoreAllMocks();
  });
});

describe('POST /api/v1/notes, many at once into a folder that does not exist yet', () => {
  it('writes every one: the folder another request made meanwhile is no case clash', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post({ title: `Burst ${i}`, body: 'x', folder: 'Fresh/Deeper' }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(40).fill(201));
    expect(readdirSync(join(vault, 'Fresh/Deeper'))).toHaveLength(40);
  });
});
