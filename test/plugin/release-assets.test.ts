// @vitest-environment node
/**
 * scripts/release-assets.mjs: the files a release carries, flat, with the model checked; and
 * the plugin's URL download completing from a folder of them served over real HTTP, as it
 * would from the release's assets.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USE_LITE_FILES } from '../../shared/embeddings/use-lite-files';
import { downloadBuiltinModel } from '../../plugin/embeddings/builtin-model-download';
import { checkModelFolder } from '../../plugin/embeddings/builtin-model-folder';
import { DiskAdapter } from './embeddings/builtin-test-kit';

const SCRIPT = resolve('scripts/release-assets.mjs');

let root: string;
let source: string;
let out: string;

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-release-'));
  source = join(root, 'build');
  out = join(root, 'release');
  mkdirSync(source);
  writeFileSync(join(source, 'main.js'), 'module.exports = {};');
  writeFileSync(join(source, 'manifest.json'), JSON.stringify({ id: 'cairn', version: '0.1.0' }));
  writeFileSync(join(source, 'styles.css'), '.cairn-chat-pane {}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('release-assets', () => {
  it('puts the plugin files and the checked model files side by side, and the plugin downloads from them', async () => {
    mkdirSync(out);
    writeFileSync(join(out, 'old-main.js'), 'stale');
    const result = run('--source', source, '--out', out);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('sizes and SHA-256 checked');
    expect(result.stdout).toContain('release tagged 0.1.0');
    expect(readdirSync(out).sort()).toEqual(
      ['main.js', 'manifest.json', 'styles.css', ...USE_LITE_FILES.map((f) => f.name)].sort(),
    );

    const server = createServer((request, response) => {
      const name = decodeURIComponent(request.url?.split('/').pop() ?? '');
      try {
        const data = readFileSync(join(out, name));
        response.writeHead(200, { 'Content-Length': String(data.length) });
        response.end(data);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const dir = join(root, 'vault/.obsidian/plugins/cairn/models/use-lite');
      const adapter = new DiskAdapter();
      await downloadBuiltinModel({
        adapter,
        dir,
        source: {
          kind: 'url',
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/download/0.1.0`,
        },
        fetch: async (url) => {
          const response = await fetch(url);
          return { status: response.status, body: await response.arrayBuffer() };
        },
      });
      expect(await checkModelFolder(adapter, dir)).toEqual({ complete: true });
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('refuses to run without a build, naming what is missing', () => {
    rmSync(join(source, 'styles.css'));
    const result = run('--source', source, '--out', out);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('styles.css missing in');
    expect(result.stderr).toContain('npm run build');
  });
});
