import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/corpora';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

let testApp: TestApp;
beforeEach(async () => {
  testApp = await buildTestApp();
});
afterEach(() => testApp.close());

const memoryFile = () => join(testApp.dir, 'vault/Cairn/Memory.md');
const fixture = (name: string) => readFileSync(join(repoRoot, 'test/fixtures/memory', name));
const BOUNDARY = '----cairn-memory-import';

function multipart(filename: string, content: Buffer | string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

const upload = (filename: string, content: Buffer | string) =>
  testApp.app.inject({
    method: 'POST',
    url: '/api/v1/memories/import',
    headers: { ...authorized, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipart(filename, content),
  });

interface ImportBody {
  imported: number;
  duplicates: number;
  memories: Array<{ id: string; text: string; category: string }>;
}

describe('POST /api/v1/memories/import', () => {
  it('imports one memory per list item of a .md, skipping prose, code, headings, duplicates', async () => {
    const response = await upload('import-notes.md', fixture('import-notes.md'));
    expect(response.statusCode).toBe(201);
    const body = response.json() as ImportBody;
    expect(body).toMatchObject({ imported: 5, duplicates: 1 });
    expect(body.memories.map((m) => [m.text, m.category])).toEqual([
      ['Try the dumplings at Golden Lotus', 'food'],
      ['Watch Past Lives', 'movies'],
      ['Read Piranesi by Susanna Clarke', 'books'],
      ['https://example.org/handy-tool', 'websites'],
      ["Mum's birthday is June 2", 'people'],
    ]);
    const file = readFileSync(memoryFile(), 'utf8');
    expect(file).not.toContain('not a memory');
    expect(file).not.toContain('555-0100');
    expect(file).not.toContain('^m-old1');
    expect(file).toContain("- Mum's birthday is June 2 #memory/people (added 2026-11-22) ^m-");
  });

  it('imports one memory per line of a .txt (CRLF), and a second import only counts duplicates', async () => {
    const first = (await upload('lines.txt', fixture('import-lines.txt'))).json() as ImportBody;
    expect(first).toMatchObject({ imported: 3, duplicates: 1 });
    expect(first.memories.map((m) => m.category)).toEqual([
      'uncategorized',
      'uncategorized',
      'learnings',
    ]);
    const before = readFileSync(memoryFile(), 'utf8');
    const again = await upload('lines.txt', fixture('import-lines.txt'));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ imported: 0, duplicates: 4 });
    expect(readFileSync(memoryFile(), 'utf8')).toBe(before);
  });

  it('keeps the categories a file already carries (the 50 hand-filed memories)', async () => {
    const body = (await upload('fifty.md', fixture('fifty-memories.md'))).json() as ImportBody;
    expect(body.imported).toBe(50);
    const counts = (
      await testApp.app.inject({
        method: 'GET',
        url: '/api/v1/memories/categories',
        headers: authorized,
      })
    ).json() as { categories: Array<{ category: string; count: number }> };
    expect(counts.categories.find((c) => c.category === 'uncategorized')!.count).toBe(4);
    expect(counts.categories.find((c) => c.category === 'people')!.count).toBe(5);
  });

  it('appends to an existing Memory.md without touching its lines', async () => {
    mkdirSync(join(testApp.dir, 'vault/Cairn'), { recursive: true });
    const hand = '# Mine\n\n- Likes tea ^m-tea1\n- a note without an id\n';
    writeFileSync(memoryFile(), hand);
    const body = (await upload('one.txt', 'likes tea\nOwns a red bike\n')).json() as ImportBody;
    expect(body).toMatchObject({ imported: 1, duplicates: 1 });
    expect(readFileSync(memoryFile(), 'utf8')).toMatch(
      /^# Mine\n\n- Likes tea \^m-tea1\n- a note without an id\n- Owns a red bike #memory\/uncategorized \(added 2026-11-22\) \^m-[a-z0-9]{4}\n$/,
    );
  });

  it.each([
    [
      'photo.png',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
      422,
      'text (.txt) and Markdown (.md) files only',
    ],
    ['binary.txt', Buffer.from([0x61, 0x00, 0x62]), 422, 'NUL bytes'],
    ['latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), 422, 'not UTF-8'],
    ['empty.txt', Buffer.alloc(0), 422, 'empty'],
    ['blank.md', '---\ntype: x\n---\n# Only a heading\n\n', 400, 'no memories found'],
    [
      'long.txt',
      `fine line\n${'x'.repeat(10_000)}\n`,
      400,
      'long.txt:2: the line is 10000 characters',
    ],
    ['dots.txt', 'fine line\n...\n', 400, 'dots.txt:2: the fact is empty'],
  ])('refuses %s clearly and writes nothing', async (name, content, status, message) => {
    const response = await upload(name, content);
    expect(response.statusCode).toBe(status);
    const error = (response.json() as { error: { message: string; field: string } }).error;
    expect(error.field).toBe('file');
    expect(error.message).toContain(message);
    expect(() => readFileSync(memoryFile())).toThrow(/ENOENT/);
  });

  it('refuses a file over 1 MB with 413 and a body that is not an upload with 400', async () => {
    const big = await upload('big.txt', 'a memory\n'.repeat(130_000));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        field: 'file',
        message: 'the file is larger than 1 MB; nothing was imported',
      },
    });
    // Received through a temp file in the data folder, which is gone again.
    expect(readdirSync(join(testApp.dir, 'data/uploads'))).toEqual([]);
    const notUpload = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/memories/import',
      headers: authorized,
      payload: { text: 'x' },
    });
    expect(notUpload.statusCode).toBe(400);
    expect(() => readFileSync(memoryFile())).toThrow(/ENOENT/);
  });
});
