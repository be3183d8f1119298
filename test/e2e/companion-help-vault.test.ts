import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerResponse, SearchResponse, StatusResponse } from '../../shared/protocol';
import { buildCompanionOnce } from '../helpers/companion-build';
import { optionalCorpus, repoRoot } from '../helpers/corpora';

// The real CLI on a copy of a real vault written by others (the English Obsidian Help, 173
// notes): index it, then search and ask over HTTP as the plugin and the phone do.

const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const TOKEN = 'e2e-help-vault-token-0123456789abcdefghijkl';

let work: string;
let base: string;
let child: ChildProcess;
let output = '';
let noteCount = 0;

function countNotes(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) count += countNotes(join(dir, entry.name));
    else if (entry.name.endsWith('.md')) count += 1;
  }
  return count;
}

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const helpVault = optionalCorpus('obsidian-help-en');

beforeAll(async () => {
  if (!helpVault) return;
  await buildCompanionOnce();

  work = mkdtempSync(join(tmpdir(), 'cairn-e2e-help-'));
  const vault = join(work, 'vault');
  cpSync(helpVault, vault, { recursive: true });
  noteCount = countNotes(vault);

  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  base = `http://127.0.0.1:${port}`;

  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_')),
  );
  child = spawn(
    process.execPath,
    [CLI, '--vault', vault, '--data', join(work, 'data'), '--port', String(port)],
    { env: { ...env, CAIRN_TOKEN: TOKEN, CAIRN_TIMEZONE: 'Europe/Berlin' }, stdio: 'pipe' },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));

  // Ready once every file is indexed; embeddings may still be on their way (search is then
  // keyword-first), which is what a user sees in the first minute too.
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`companion exited early:\n${output}`);
    try {
      const status = await api<StatusResponse>('/api/v1/status');
      // Every note, and the weekly digest task the first start creates (docs/tasks.md).
      if (status.index.files === noteCount + 1 && status.index.pending === 0) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`index never caught up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 180_000);

afterAll(async () => {
  if (!helpVault) return;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!helpVault)('the companion CLI on obsidian-help-en', () => {
  it('indexes every note and reports no failures', async () => {
    const status = await api<StatusResponse>('/api/v1/status');
    expect(status.index.files).toBe(noteCount + 1);
    expect(status.index.pending).toBe(0);
    expect(status.index.failed).toEqual([]);
    expect(status.index.chunks).toBeGreaterThan(noteCount);
  });

  it('finds the note about a topic by its words, with a citation that opens a heading', async () => {
    const body = await api<SearchResponse>(`/api/v1/search?q=${encodeURIComponent('embed files')}`);
    expect(body.results.length).toBeGreaterThan(0);
    const paths = body.results.slice(0, 5).map((result) => result.citation.path);
    expect(paths.some((path) => /Embed files\.md$/.test(path))).toBe(true);
    const top = body.results[0]!.citation;
    expect(top.type).toBe('note');
    if (top.type === 'note') {
      expect(top.lines[0]).toBeGreaterThanOrEqual(1);
      expect(top.lines[1]).toBeGreaterThanOrEqual(top.lines[0]);
    }
  });

  it('filters by folder', async () => {
    const body = await api<SearchResponse>(
      `/api/v1/search?q=${encodeURIComponent('sync')}&folder=${encodeURIComponent('Obsidian Sync')}`,
    );
    expect(body.results.length).toBeGreaterThan(0);
    for (const result of body.results) expect(result.citation.path).toMatch(/^Obsidian Sync\//);
  });

  it('answers a question with quoted passages, each cited', async () => {
    const body = await api<AnswerResponse>('/api/v1/answer', {
      method: 'POST',
      body: JSON.stringify({ question: 'How do I create a link to a heading in another note?' }),
    });
    expect(body.citations.length).toBeGreaterThan(0);
    expect(body.answer.length).toBeGreaterThan(20);
    // Every citation marker in the answer points at a citation that exists.
    const markers = [...body.answer.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
    expect(markers.length).toBeGreaterThan(0);
    for (const marker of markers) {
      expect(marker).toBeGreaterThanOrEqual(1);
      expect(marker).toBeLessThanOrEqual(body.citations.length);
    }
  });

  it('says so instead of guessing when nothing in the vault is relevant', async () => {
    const body = await api<AnswerResponse>('/api/v1/answer', {
      method: 'POST',
      body: JSON.stringify({ question: 'What is the boiling point of tungsten carbide?' }),
    });
    expect(body.citations).toEqual([]);
  });
});
