import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_URL } from '../plugin/release-info';

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('release metadata', () => {
  const pkg = read('package.json');
  const manifest = read('manifest.json');
  const versions = read('versions.json') as Record<string, string>;

  it('manifest is valid for the community plugin list', () => {
    expect(manifest.id).toBe('cairn');
    expect(manifest.isDesktopOnly).toBe(false);
    for (const key of ['name', 'version', 'minAppVersion', 'description', 'author']) {
      expect(typeof manifest[key], key).toBe('string');
    }
    // The review bot rejects ids and descriptions that mention Obsidian itself.
    expect(String(manifest.id)).not.toMatch(/obsidian/i);
    expect(String(manifest.description)).not.toMatch(/obsidian/i);
  });

  it('links the project the plugin downloads its model release from', () => {
    expect(manifest.authorUrl).toBe(PROJECT_URL);
  });

  it('keeps package, manifest and versions.json in step', () => {
    expect(manifest.version).toBe(pkg.version);
    const minAppForThisVersion = Object.entries(versions)
      .filter(([version]) => compareSemver(version, String(manifest.version)) <= 0)
      .sort(([a], [b]) => compareSemver(a, b))
      .at(-1)?.[1];
    expect(minAppForThisVersion).toBe(manifest.minAppVersion);
  });

  it('requires Node 22 or newer, in package.json, the lockfile and the README', () => {
    // Node 20 reached its end of life in April 2026; openai, cookie and content-disposition
    // need 22 (issue #26).
    const engines = pkg.engines as { node?: string };
    expect(engines.node).toBe('>=22');
    const lock = read('package-lock.json') as { packages: Record<string, { engines?: object }> };
    expect(lock.packages['']?.engines).toEqual({ node: '>=22' });
    const readme = readFileSync('README.md', 'utf8');
    const requirements = readme.slice(readme.indexOf('## Requirements'));
    expect(requirements).toMatch(/^- Node\.js 22 or newer/m);
    expect(requirements.slice(0, 400)).not.toMatch(/Node\.js 20/);
  });
});

function compareSemver(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
