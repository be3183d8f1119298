import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../shared/markdown';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * POST /api/v1/import over the real fixtures (a Firefox bookmark export, Kindle's My
 * Clippings.txt): whole or nothing, errors naming file:line, dry_run answering every note
 * (test/companion/clients/dry-run-every-file.test.ts compares them with a real import).
 */

const fixture = (name: string) =>
  readFileSync(join(__dirname, '../../fixtures/import', name), 'utf8');

let test: TestApp;
/** buildTestApp copies the sample vault to <dir>/vault. */
const vault = () => join(test.dir, 'vault');
beforeEach(async () => {
  test = await buildTestApp();
});
afterEach(async () => {
  await test.close();
});

const post = (payload: Record<string, unknown>, url = '/api/v1/import') =>
  test.app.inject({ method: 'POST', url, headers: authorized, payload });

describe('POST /api/v1/import', () => {
  it('bookmarks become link notes with their folders as tags', async () => {
    const response = await post({
      kind: 'bookmarks',
      file: 'bookmarks.html',
      text: fixture('bookmarks-firefox.html'),
    });
    expect(response.statusCode, response.body).toBe(201);
    const notes = (response.json() as { notes: Array<{ path: string; title: string }> }).notes;
    expect(notes).toHaveLength(5);
    expect(notes.every((n) => n.path.startsWith('Imports/Bookmarks/'))).toBe(true);
    const bread = notes.find((n) => n.title.startsWith('Classic Sandwich Bread'));
    const text = readFileSync(join(vault(), bread?.path ?? ''), 'utf8');
    const parsed = parseFrontMatter(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.data.tags).toEqual(['bookmark', 'recipes-cooking', 'bread']);
    expect(parsed.data.url).toBe(
      'https://www.kingarthurbaking.com/recipes/classic-sandwich-bread-recipe',
    );
    expect(text).toContain(
      '[Classic Sandwich Bread Recipe | King Arthur Baking](https://www.kingarthurbaking.com/recipes/classic-sandwich-bread-recipe)',
    );
    expect(text).toContain('Folder: Recipes & Cooking / Bread');
  });

  it('Kindle clippings become one note per book', async () => {
    const response = await post({
      kind: 'kindle',
      file: 'My Clippings.txt',
      text: fixture('My Clippings.txt'),
    });
    expect(response.statusCode, response.body).toBe(201);
    const notes = (response.json() as { notes: Array<{ path: string; title: string }> }).notes;
    expect(notes.map((n) => n.title)).toEqual([
      'The Pragmatic Programmer',
      'Thinking, Fast and Slow',
    ]);
    const text = readFileSync(join(vault(), notes[0]?.path ?? ''), 'utf8');
    expect(text).toContain('author: David Thomas;Andrew Hunt');
    expect(text).toContain(
      '> Don’t live with broken windows.\n\n— page 42 · location 617-619 · added Tuesday, 12 March 2024 21:04:11',
    );
    expect(text).toContain('**Note** (page 42 · location 619');
    expect(text).not.toContain('\uFEFF');
  });

  it('a bad line refuses the whole file, naming file:line, and writes nothing', async () => {
    const broken = fixture('My Clippings.txt').replace(
      '- Your Highlight on page 58',
      'Highlight on page 58',
    );
    const response = await post({ kind: 'kindle', file: 'My Clippings.txt', text: broken });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', field: 'text' },
    });
    expect(response.json().error.message).toMatch(/^My Clippings\.txt:23: expected/);
    expect(existsSync(join(vault(), 'Imports'))).toBe(false);
  });

  it('dry_run answers the notes it would create and writes nothing', async () => {
    const response = await post(
      { kind: 'bookmarks', file: 'chrome.html', text: fixture('bookmarks-chrome.html') },
      '/api/v1/import?dry_run=true',
    );
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as {
      dry_run: boolean;
      changes: Array<{ path: string; diff: string }>;
    };
    expect(body.dry_run).toBe(true);
    expect(body.changes[0]?.path).toMatch(/^Imports\/Bookmarks\/hacker-news\.md$/i);
    expect(body.changes[0]?.diff).toContain('+[Hacker News](https://news.ycombinator.com/)');
    expect(existsSync(join(vault(), 'Imports'))).toBe(false);
    expect(readdirSync(vault())).not.toContain('Imports');
  });
});
