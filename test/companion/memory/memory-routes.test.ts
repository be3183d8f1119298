import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

let testApp: TestApp;
let vault: string;
const memoryFile = () => join(vault, 'Cairn/Memory.md');

beforeEach(async () => {
  testApp = await buildTestApp();
  vault = join(testApp.dir, 'vault');
});
afterEach(() => testApp.close());

const remember = (text: unknown) =>
  testApp.app.inject({
    method: 'POST',
    url: '/api/v1/memories',
    headers: authorized,
    payload: { text },
  });
const list = async () =>
  (
    await testApp.app.inject({ method: 'GET', url: '/api/v1/memories', headers: authorized })
  ).json() as {
    memories: Array<{ id: string; text: string; line: number }>;
    problems: Array<{ line: number; kind: string; message: string }>;
  };

describe('memories routes', () => {
  it('needs the token', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/api/v1/memories' });
    expect(response.statusCode).toBe(401);
  });

  it('remembers into Cairn/Memory.md, lists, and forgets one line', async () => {
    const first = await remember('My passport expires 2031-05');
    expect(first.statusCode).toBe(201);
    const a = first.json() as { id: string; line: number; added: string; path: string };
    expect(a).toMatchObject({ path: 'Cairn/Memory.md', added: '2026-11-22', deduplicated: false });
    const second = (await remember('Dentist is Dr Lee')).json() as { id: string };
    expect(readFileSync(memoryFile(), 'utf8')).toContain(
      `- My passport expires 2031-05 #memory/uncategorized (added 2026-11-22) ^${a.id}\n`,
    );

    const again = await remember('my passport expires 2031-05.');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: a.id, deduplicated: true });

    expect((await list()).memories.map((m) => m.id)).toEqual([a.id, second.id]);
    const before = readFileSync(memoryFile(), 'utf8');
    const gone = await testApp.app.inject({
      method: 'DELETE',
      url: `/api/v1/memories/${second.id}`,
      headers: authorized,
    });
    expect(gone.statusCode).toBe(200);
    expect(readFileSync(memoryFile(), 'utf8')).toBe(before.replace(/- Dentist is Dr Lee.*\n/, ''));
    const missing = await testApp.app.inject({
      method: 'DELETE',
      url: `/api/v1/memories/${second.id}`,
      headers: authorized,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'id' } });
  });

  it('a newer contradicting fact strikes the older one through, visibly', async () => {
    const old = (await remember('My passport expires 2031')).json() as { id: string };
    testApp.clock.advance(3 * 86_400_000);
    const newer = (await remember('my passport expires 2032')).json() as {
      id: string;
      replaced: string[];
    };
    expect(newer.replaced).toEqual([old.id]);
    const text = readFileSync(memoryFile(), 'utf8');
    expect(text).toContain(
      `- ~~My passport expires 2031 #memory/uncategorized (added 2026-11-22)~~ (replaced 2026-11-25 by ^${newer.id}) ^${old.id}\n`,
    );
    expect((await list()).memories.map((m) => m.id)).toEqual([newer.id]);
  });

  it('sees hand edits at once and reports odd lines by line, keeping them', async () => {
    mkdirSync(join(vault, 'Cairn'), { recursive: true });
    const hand = `---\ntype: memory\n---\n- Likes tea ^m-tea1\n- no id\n- \n- ${'y'.repeat(10_240)} ^m-big1\n`;
    writeFileSync(memoryFile(), hand);
    const listed = await list();
    expect(listed.memories).toEqual([
      {
        id: 'm-tea1',
        text: 'Likes tea',
        added: null,
        path: 'Cairn/Memory.md',
        line: 4,
        category: 'food',
        category_source: 'rules',
      },
    ]);
    expect(listed.problems.map((p) => [p.line, p.kind])).toEqual([
      [5, 'no-block-id'],
      [6, 'empty'],
      [7, 'too-long'],
    ]);
    const added = (await remember('Allergic to cats')).json() as { id: string; line: number };
    expect(added.line).toBe(8);
    expect(readFileSync(memoryFile(), 'utf8')).toBe(
      `${hand}- Allergic to cats #memory/people (added 2026-11-22) ^${added.id}\n`,
    );
  });

  it('refuses bad facts and a Memory.md that is a folder with clear errors', async () => {
    expect((await remember('   ')).statusCode).toBe(400);
    const long = await remember('x'.repeat(1001));
    expect(long.statusCode).toBe(400);
    mkdirSync(memoryFile(), { recursive: true });
    const folder = await remember('Likes tea');
    expect(folder.statusCode).toBe(409);
    expect(folder.json()).toMatchObject({
      error: { message: expect.stringContaining('is a folder') },
    });
  });
});
