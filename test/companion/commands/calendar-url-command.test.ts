import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCalendarUrl } from '../../../companion/commands/calendar-url-command';
import { feedSecretMatches } from '../../../companion/calendar/feed-secret';
import { registerDataFolder } from '../../../companion/data-folders';
import { copySampleVault, tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
let vault: string;
let data: string;

beforeEach(() => {
  dir = tempDir('calendar-url');
  vault = copySampleVault(dir.path);
  data = join(dir.path, 'data');
});
afterEach(() => dir.remove());

function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCalendarUrl(args, {
    env: {},
    homeDir: dir.path,
    systemTimeZone: 'Europe/Berlin',
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

describe('cairn-companion calendar-url', () => {
  it('prints a stable URL, --rotate replaces its secret, the file is 0600', () => {
    const first = run('--vault', vault, '--data', data, '--port', '9999');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^http:\/\/127\.0\.0\.1:9999\/api\/v1\/calendar\/[A-Za-z0-9_-]{43}\.ics\n$/,
    );
    expect(run('--vault', vault, '--data', data, '--port', '9999').stdout).toBe(first.stdout);
    expect(statSync(join(data, 'calendar-feed-secret')).mode & 0o777).toBe(0o600);
    const secret = /calendar\/(.+)\.ics/.exec(first.stdout)![1]!;
    expect(feedSecretMatches(data, secret)).toBe(true);

    const rotated = run(
      '--vault',
      vault,
      '--data',
      data,
      '--rotate',
      '--base-url',
      'https://home.example.ts.net/cairn/',
    );
    expect(rotated.stdout).toMatch(
      /^https:\/\/home\.example\.ts\.net\/cairn\/api\/v1\/calendar\/[A-Za-z0-9_-]{43}\.ics\n$/,
    );
    expect(rotated.stderr).toContain('previous URL no longer works');
    expect(feedSecretMatches(data, secret)).toBe(false);
  });

  it("finds the running server's data folder, or refuses and says where it looked", () => {
    const nowhere = run('--vault', vault);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain(`no companion has run on ${vault} yet`);
    expect(nowhere.stderr).toContain(
      join(dir.path, '.local/state/cairn-companion/data-folders.json'),
    );
    expect(nowhere.stderr).toContain(join(dir.path, '.local/share/cairn-companion'));
    expect(existsSync(join(dir.path, '.local/share'))).toBe(false);

    // Recorded by a server that ran with --data (as `npm start` does with .cairn-data).
    registerDataFolder(
      join(dir.path, '.local/state/cairn-companion/data-folders.json'),
      vault,
      data,
      Date.parse('2026-11-22T10:00:00Z'),
    );
    const found = run('--vault', vault, '--port', '9999');
    expect(found.code).toBe(0);
    const secret = /calendar\/(.+)\.ics/.exec(found.stdout)![1]!;
    expect(feedSecretMatches(data, secret)).toBe(true);
  });

  it('refuses unknown flags and a missing vault with usage errors', () => {
    expect(run('--vault', vault, '--nope').code).toBe(2);
    const missing = run('--data', data);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/vault/);
  });
});
