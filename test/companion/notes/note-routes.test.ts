import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
