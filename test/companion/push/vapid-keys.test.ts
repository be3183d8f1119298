import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webPush from 'web-push';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_VAPID_SUBJECT,
  VAPID_KEYS_FILE,
  VapidKeyError,
  loadOrCreateVapidKeys,
  subjectProblem,
} from '../../../companion/push/vapid-keys';
import { tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('vapid');
});
afterEach(() => {
  dir.remove();
});

const file = () => join(dir.path, VAPID_KEYS_FILE);

describe('loadOrCreateVapidKeys', () => {
  it('creates a 0600 key file on first start and reuses the same keys afterwards', () => {
    const first = loadOrCreateVapidKeys(dir.path);
    expect(first.created).toBe(true);
    expect(first.file).toBe(file());
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(Buffer.from(first.keys.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(first.keys.privateKey, 'base64url')).toHaveLength(32);
    expect(first.keys.subject).toBe(DEFAULT_VAPID_SUBJECT);

    const second = loadOrCreateVapidKeys(dir.path);
    expect(second.created).toBe(false);
    expect(second.keys).toEqual(first.keys);
  });

  it('signs headers web-push accepts', () => {
    const { keys } = loadOrCreateVapidKeys(dir.path);
    const headers = webPush.getVapidHeaders(
      'https://push.example.net',
      keys.subject,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
    );
    expect(headers.Authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]{87}$/);
  });

  it('takes the subject from the option, else from the file', () => {
    loadOrCreateVapidKeys(dir.path);
    const stored = JSON.parse(readFileSync(file(), 'utf8')) as Record<string, string>;
    writeFileSync(file(), JSON.stringify({ ...stored, subject: 'https://cairn.example.org' }));
    expect(loadOrCreateVapidKeys(dir.path).keys.subject).toBe('https://cairn.example.org');
    expect(loadOrCreateVapidKeys(dir.path, { subject: 'mailto:me@example.org' }).keys.subject).toBe(
      'mailto:me@example.org',
    );
  });

  it('tightens a key file that became readable by others', () => {
    loadOrCreateVapidKeys(dir.path);
    chmodSync(file(), 0o644);
    loadOrCreateVapidKeys(dir.path);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['empty', '', /not valid JSON/],
    ['not JSON', '{"public_key":', /not valid JSON/],
    ['an array', '[]', /expected a JSON object/],
    ['missing private_key', '{"public_key":"BAAA"}', /field "public_key"|field "private_key"/],
    [
      'a short public key',
      '{"public_key":"BAAA","private_key":"AAAA"}',
      /field "public_key" is not/,
    ],
  ])(
    'refuses a damaged key file (%s), naming the file, and does not replace it',
    (_label, text, pattern) => {
      writeFileSync(file(), text, { mode: 0o600 });
      expect(() => loadOrCreateVapidKeys(dir.path)).toThrow(VapidKeyError);
      expect(() => loadOrCreateVapidKeys(dir.path)).toThrow(pattern);
      expect(() => loadOrCreateVapidKeys(dir.path)).toThrow(file());
      expect(readFileSync(file(), 'utf8')).toBe(text);
    },
  );

  it('refuses keys that are not a pair', () => {
    const one = webPush.generateVAPIDKeys();
    const other = webPush.generateVAPIDKeys();
    writeFileSync(
      file(),
      JSON.stringify({ public_key: one.publicKey, private_key: other.privateKey }),
    );
    expect(() => loadOrCreateVapidKeys(dir.path)).toThrow(/are not a pair/);
  });

  it('refuses a bad subject from the option or the file', () => {
    expect(() => loadOrCreateVapidKeys(dir.path, { subject: 'me@example.org' })).toThrow(
      /push subject "me@example.org": not a URL; use mailto:/,
    );
    loadOrCreateVapidKeys(dir.path);
    const stored = JSON.parse(readFileSync(file(), 'utf8')) as Record<string, string>;
    writeFileSync(file(), JSON.stringify({ ...stored, subject: 'mailto:me@localhost' }));
    expect(() => loadOrCreateVapidKeys(dir.path)).toThrow(/field "subject".*not a public name/);
  });
});

describe('subjectProblem', () => {
  it.each([
    ['mailto:me@example.org', null],
    ['https://cairn.example.org', null],
    ['http://cairn.example.org', 'must be a mailto: or https: URL (RFC 8292)'],
    ['mailto:', 'a mailto: subject needs an address'],
    ['mailto:me@', 'a mailto: subject needs an address'],
    ['https://localhost:8787', expect.stringContaining('not a public name')],
    ['mailto:relay@herdr.local', expect.stringContaining('not a public name')],
    ['not a url', expect.stringContaining('not a URL')],
  ])('%s → %s', (subject, problem) => {
    expect(subjectProblem(subject)).toEqual(problem);
  });
});
