// @vitest-environment node
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkModelFolder } from '../../plugin/embeddings/builtin-model-folder';

const SCRIPT = resolve('scripts/install-plugin.mjs');

let root: string;
let source: string;

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function makeVault(name: string, withConfig = true): string {
  const vault = join(root, name);
  mkdirSync(withConfig ? join(vault, '.obsidian') : vault, { recursive: true });
  return vault;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-install-'));
  source = join(root, 'build');
  mkdirSync(source);
  writeFileSync(join(source, 'main.js'), 'module.exports = {};');
  writeFileSync(join(source, 'manifest.json'), JSON.stringify({ id: 'cairn', version: '0.1.0' }));
  writeFileSync(join(source, 'styles.css'), '.cairn-chat-pane {}');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('scripts/install-plugin.mjs', () => {
  it('copies the three files into .obsidian/plugins/<id> and keeps the user’s data.json', () => {
    const vault = makeVault('Vault');
    const pluginDir = join(vault, '.obsidian', 'plugins', 'cairn');
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(join(pluginDir, 'data.json'), '{"settingsVersion":1}');
    writeFileSync(join(pluginDir, 'main.js'), 'old build');

    const result = run(vault, '--source', source);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    for (const name of ['main.js', 'manifest.json', 'styles.css']) {
      expect(readFileSync(join(pluginDir, name), 'utf8')).toBe(
        readFileSync(join(source, name), 'utf8'),
      );
      expect(result.stdout).toContain(`copied ${name}`);
    }
    expect(readFileSync(join(pluginDir, 'data.json'), 'utf8')).toBe('{"settingsVersion":1}');
    expect(result.stdout).toContain(`installed cairn into ${pluginDir}`);
  });

  it.each<[string, (vault: () => string) => string[], string]>([
    ['no vault', () => ['--source', 'x'], 'no vault given'],
    [
      'a vault that does not exist',
      () => [join(tmpdir(), 'no-such-vault-cairn'), '--source', 'x'],
      'is not a folder',
    ],
    [
      'a folder without .obsidian',
      (vault) => [vault(), '--source', 'x'],
      'has no .obsidian folder',
    ],
    ['two vaults', () => ['a', 'b'], 'one vault at a time'],
    ['an unknown option', () => ['--force'], 'unknown option --force'],
    ['--source without a folder', () => ['--source'], '--source needs a folder'],
  ])('refuses %s with a clear message', (_name, args, message) => {
    const result = run(...args(() => makeVault('Plain', false)));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it('--with-model copies the built-in model into the plugin folder, complete for its check', async () => {
    const vault = makeVault('Vault');
    const result = run(vault, '--source', source, '--with-model');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const modelDir = join(vault, '.obsidian', 'plugins', 'cairn', 'models', 'use-lite');
    expect(result.stdout).toContain(`copied the built-in model (11 files`);
    const adapter = {
      exists: async (path: string) => existsSync(path),
      stat: async (path: string) => (existsSync(path) ? { size: statSync(path).size } : null),
    };
    expect(await checkModelFolder(adapter, modelDir)).toEqual({ complete: true });
    expect(readdirSync(modelDir).filter((name) => name.endsWith('.download'))).toEqual([]);
  });

  it('names the missing build files and copies nothing', () => {
    const vault = makeVault('Vault');
    rmSync(join(source, 'styles.css'));
    const result = run(vault, '--source', source);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('styles.css missing');
    expect(result.stderr).toContain('--build');
  });

  it('refuses a manifest without a usable id', () => {
    const vault = makeVault('Vault');
    writeFileSync(join(source, 'manifest.json'), JSON.stringify({ id: '../escape' }));
    const result = run(vault, '--source', source);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no usable "id"');
  });
});
