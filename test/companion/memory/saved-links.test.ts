import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { extractPage } from '../../../companion/memory/link-page';
import { linkProblem } from '../../../companion/memory/link-fetcher';
import { repoRoot } from '../../helpers/corpora';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * Saved links against a real HTTP server on 127.0.0.1 serving a page saved from the web
 * (test/fixtures/links), behind redirects, plus a page that never answers, one that never
 * ends, a PDF, a 404 and a redirect loop.
 */

const PAGE = readFileSync(join(repoRoot, 'test/fixtures/links/what-is-rustdoc.html'));
let server: Server;
let base: string;
let connections = 0;
const held = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    } else if (path === '/old') {
      res.writeHead(301, { location: '/moved' });
      res.end();
    } else if (path === '/moved') {
      res.writeHead(302, { location: `${base}/page` });
      res.end();
    } else if (path === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
    } else if (path === '/slow') {
      held.add(res); // never answers
    } else if (path === '/huge') {
      // A page that never ends (a "2 GB" page), without a length: the cap must stop it.
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    } else if (path === '/paper.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.7\n');
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not found</h1>');
    }
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let testApp: TestApp | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await testApp?.close();
  testApp = undefined;
});

const linksDir = () => join(testApp!.dir, 'vault/Cairn/Links');
const clips = () => (existsSync(linksDir()) ? readdirSync(linksDir()) : []);
const remember = (text: string) =>
  testApp!.app.inject({
    method: 'POST',
    url: '/api/v1/memories',
    headers: authorized,
    payload: { text },
  });
const retry = (id: string) =>
  testApp!.app.inject({ method: 'POST', url: `/api/v1/memories/${id}/link`, headers: authorized });

async function allowed(limits: { timeoutMs?: number; maxBytes?: number } = {}) {
  testApp = await buildTestApp({
    config: { linkHosts: ['127.0.0.1'] },
    deps: { linkFetch: { timeoutMs: 500, maxBytes: 1024 * 1024, ...limits } },
  });
}

describe('saved links, offline by default', () => {
  it('keeps the memory, says the link was not fetched and how to allow it, and connects nowhere', async () => {
    testApp = await buildTestApp();
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const before = connections;
    const created = await remember(`Docs worth keeping ${base}/page`);
    await testApp.app.close();
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      category: 'websites',
      link: {
        url: `${base}/page`,
        status: 'not_fetched',
        message: expect.stringContaining('--link-hosts'),
      },
    });
    expect(connect).not.toHaveBeenCalled();
    expect(connections).toBe(before);
    expect(readFileSync(join(testApp.dir, 'vault/Cairn/Memory.md'), 'utf8')).toContain(
      `Docs worth keeping ${base}/page`,
    );
    expect(clips()).toEqual([]);
  });
});

describe('saved links, host allowed', () => {
  it('follows redirects, extracts title and text, and writes a clipped note linked to the memory', async () => {
    await allowed();
    const created = (await remember(`Rustdoc intro ${base}/old`)).json() as {
      id: string;
      link: { status: string };
    };
    expect(created.link.status).toBe('fetching');
    await testApp!.app.close();
    expect(clips()).toEqual(['what-is-rustdoc-the-rustdoc-book.md']);
    const note = readFileSync(join(linksDir(), clips()[0]!), 'utf8');
    expect(note).toMatch(
      /^---\ntype: link\ntitle: .*What is rustdoc\?.*\nsource: .*\/page.*\nfetched: .*2026-11-22T11:00:00\+01:00.*\nmemory: .*\[\[Cairn\/Memory#\^m-[a-z0-9]{4}\]\].*\n---\n/,
    );
    expect(note).toContain(`[[Cairn/Memory#^${created.id}]]`);
    expect(note).toContain('The standard Rust distribution ships with a tool called rustdoc');
    expect(note).not.toContain('<script');
  });

  it('the retry route clips on demand and answers where the note is', async () => {
    await allowed();
    const created = (await remember(`Rustdoc ${base}/page`)).json() as { id: string };
    const clipped = await retry(created.id);
    expect(clipped.statusCode).toBe(201);
    expect(clipped.json()).toMatchObject({
      path: expect.stringMatching(/^Cairn\/Links\/what-is-rustdoc/),
      source: `${base}/page`,
    });
  });

  it.each([
    ['/slow', 503, 'TIMEOUT: 127.0.0.1'],
    ['/huge', 422, 'TOO_LARGE'],
    ['/paper.pdf', 422, 'NOT_HTML: '],
    ['/loop', 422, 'TOO_MANY_REDIRECTS'],
    ['/gone', 503, 'HTTP_STATUS: 127.0.0.1'],
  ])(
    'a fetch of %s fails with %i saying why, and writes no clip',
    async (path, status, message) => {
      await allowed({ timeoutMs: 300 });
      const again = (await remember(`Link ${base}${path}`)).json() as { id: string };
      const failed = await retry(again.id);
      expect(failed.statusCode).toBe(status);
      expect(failed.json()).toMatchObject({
        error: { field: 'url', message: expect.stringContaining(message) },
      });
      await testApp!.app.close();
      expect(clips()).toEqual([]);
    },
  );

  it('with * allowed, a loopback address still needs its own name in the list', async () => {
    testApp = await buildTestApp({ config: { linkHosts: ['*'] } });
    const created = (await remember(`Local ${base}/page`)).json() as {
      id: string;
      link: { status: string; message: string };
    };
    expect(created.link).toMatchObject({
      status: 'not_fetched',
      message: expect.stringContaining('loopback/private'),
    });
    expect((await retry(created.id)).json()).toMatchObject({
      error: { message: expect.stringContaining('PRIVATE_ADDRESS') },
    });
  });

  it('a memory without a link, or an unknown memory, has nothing to retry', async () => {
    await allowed();
    const plain = (await remember('ftp://example.org/file is the old mirror')).json() as {
      id: string;
      link?: unknown;
    };
    expect(plain.link).toBeUndefined();
    expect((await retry(plain.id)).statusCode).toBe(422);
    expect((await retry('m-zzzz')).statusCode).toBe(404);
  });
});

describe('linkProblem and extractPage', () => {
  it('refuses non-http(s) URLs and unlisted hosts before any connection', () => {
    expect(linkProblem('ftp://example.org/x', { hosts: ['*'] })?.code).toBe('BAD_URL');
    expect(linkProblem('javascript:alert(1)', { hosts: ['*'] })?.code).toBe('BAD_URL');
    expect(linkProblem('https://example.org/x', { hosts: [] })?.code).toBe('OFFLINE');
    expect(linkProblem('https://a.example.org/x', { hosts: ['*.example.org'] })).toBeNull();
    expect(linkProblem('http://192.168.1.10/', { hosts: ['*'] })?.code).toBe('PRIVATE_ADDRESS');
    expect(linkProblem('http://192.168.1.10/', { hosts: ['192.168.1.10'] })).toBeNull();
  });

  it('takes the saved page’s title and main text, leaving navigation and scripts out', () => {
    const page = extractPage(
      PAGE.toString('utf8'),
      'https://doc.rust-lang.org/rustdoc/what-is-rustdoc.html',
    );
    expect(page.title).toContain('What is rustdoc?');
    expect(page.text).toContain('The standard Rust distribution ships with a tool called rustdoc');
    expect(page.text).not.toMatch(/<(?:script|div|nav|span|a)\b/);
    expect(page.text).toContain('```\n$ rustdoc src/lib.rs\n```');
  });
});
