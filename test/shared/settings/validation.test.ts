import { describe, expect, it } from 'vitest';
import {
  checkHttpUrl,
  checkModelDownloadUrl,
  checkVaultFolder,
  classifyHost,
  isValidTimeZone,
  maskToken,
  offlineModeViolation,
} from '../../../shared/settings/validation';

describe('checkHttpUrl', () => {
  it.each([
    ['http://192.168.1.20:8787', 'http://192.168.1.20:8787', '192.168.1.20'],
    ['https://cairn.example.org/', 'https://cairn.example.org', 'cairn.example.org'],
    ['https://proxy.lan/cairn/', 'https://proxy.lan/cairn', 'proxy.lan'],
    ['  http://nas:8787  ', 'http://nas:8787', 'nas'],
    ['192.168.1.20:8787', 'http://192.168.1.20:8787', '192.168.1.20'],
    ['localhost:8787', 'http://localhost:8787', 'localhost'],
    ['HTTP://NAS.LOCAL:8787', 'http://nas.local:8787', 'nas.local'],
    ['http://[::1]:8787', 'http://[::1]:8787', '::1'],
  ])('accepts %j as %s', (input, url, host) => {
    expect(checkHttpUrl(input)).toEqual({ ok: true, url, host });
  });

  it.each([
    ['', 'Enter a URL'],
    ['   ', 'Enter a URL'],
    ['ftp://nas/files', 'Only http:// and https://'],
    ['file:///etc/passwd', 'Only http:// and https://'],
    ['javascript://alert(1)', 'Only http:// and https://'],
    ['http://', 'is not a URL'],
    ['http://exa mple.com', 'is not a URL'],
    ['http://user:secret@nas:8787', 'token field'],
    ['http://nas:8787/?token=abc', 'query'],
    ['http://nas:8787/#x', 'fragment'],
  ])('refuses %j with a message', (input, message) => {
    const result = checkHttpUrl(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });
});

describe('checkModelDownloadUrl', () => {
  it.each([
    [
      'https://github.com/cairn-notes/cairn/releases/download/0.1.0/',
      'https://github.com/cairn-notes/cairn/releases/download/0.1.0',
      'github.com',
    ],
    ['http://192.168.1.20:8080/models', 'http://192.168.1.20:8080/models', '192.168.1.20'],
    ['http://localhost:8000/', 'http://localhost:8000', 'localhost'],
    ['nas.local/cairn', 'http://nas.local/cairn', 'nas.local'],
  ])('accepts %j as %s', (input, url, host) => {
    expect(checkModelDownloadUrl(input)).toEqual({ ok: true, url, host });
  });

  it.each([
    ['', 'Model download URL: enter a URL'],
    ['   ', 'Model download URL: enter a URL'],
    ['ftp://mirror.example.org/cairn', 'Model download URL: Only http:// and https://'],
    [
      'http://mirror.example.org/cairn',
      'Model download URL: use https:// for mirror.example.org; http:// is allowed only for this device and your local network.',
    ],
    ['github.com/cairn-notes/cairn', 'Model download URL: use https:// for github.com'],
    ['https://user:pw@mirror.example.org/', 'Model download URL: Remove the user name'],
  ])('refuses %j, naming the field', (input, message) => {
    const result = checkModelDownloadUrl(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });
});

describe('classifyHost', () => {
  it.each([
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['cairn.localhost', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.20', 'private'],
    ['169.254.10.1', 'private'],
    ['100.101.102.103', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'private'],
    ['nas', 'private'],
    ['nas.local', 'private'],
    ['server.lan', 'private'],
    ['box.home.arpa', 'private'],
    ['pi.tailnet-1234.ts.net', 'private'],
    ['172.15.0.1', 'public'],
    ['172.32.0.1', 'public'],
    ['192.169.1.1', 'public'],
    ['100.63.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['2001:db8::1', 'public'],
    ['example.com', 'public'],
    ['localhost.example.com', 'public'],
    ['local.example.com', 'public'],
    ['999.1.1.1', 'public'],
  ])('%s is %s', (host, scope) => {
    expect(classifyHost(host)).toBe(scope);
  });
});

describe('offlineModeViolation', () => {
  it.each([
    ['http://127.0.0.1:8787', true, null],
    ['http://192.168.1.20:8787', true, null],
    ['https://cairn.example.org', false, null],
    ['not a url at all', true, null],
  ])('%s with offline mode %s is allowed', (url, offline, expected) => {
    expect(offlineModeViolation(url, offline)).toBe(expected);
  });

  it('flags an internet host in offline mode and names it', () => {
    expect(offlineModeViolation('https://cairn.example.org', true)).toContain('cairn.example.org');
  });
});

describe('checkVaultFolder', () => {
  it.each([
    ['Cairn/Notes', 'Cairn/Notes'],
    ['/Cairn/Notes/', 'Cairn/Notes'],
    ['Cairn\\Notes', 'Cairn/Notes'],
    ['Cairn//Notes', 'Cairn/Notes'],
    ['  Inbox ', 'Inbox'],
    ['Notes/.hidden-ok-inside', 'Notes/.hidden-ok-inside'],
  ])('%j becomes %j', (input, folder) => {
    expect(checkVaultFolder(input)).toEqual({ ok: true, folder });
  });

  it.each([
    ['', 'Enter a folder'],
    ['/', 'Enter a folder'],
    ['../outside', 'inside the vault'],
    ['Notes/../../x', 'inside the vault'],
    ['./Notes', 'inside the vault'],
    ['.obsidian/plugins', 'hidden folder'],
    ['.trash', 'hidden folder'],
  ])('refuses %j', (input, message) => {
    const result = checkVaultFolder(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });
});

describe('maskToken', () => {
  it.each([
    ['', 'not set'],
    ['abc', '•••'],
    ['abcdefgh', '••••••••'],
    ['0123456789abcdefXYZW', '••••••••XYZW'],
  ])('%j is shown as %j', (token, masked) => {
    expect(maskToken(token)).toBe(masked);
  });

  it('never shows more than the last four characters of a long token', () => {
    const token = 'secret-token-value-1234';
    expect(maskToken(token)).not.toContain('secret');
  });
});

describe('isValidTimeZone', () => {
  it.each([
    ['Europe/Berlin', true],
    ['America/New_York', true],
    ['UTC', true],
    ['', false],
    ['Mars/Olympus', false],
    ['+01:00 but not a zone', false],
  ])('%j → %s', (zone, valid) => {
    expect(isValidTimeZone(zone)).toBe(valid);
  });
});

describe('isValidTimeZone agrees with Intl.DateTimeFormat', () => {
  // The listed zones are answered from Intl.supportedValuesOf; the rest by a DateTimeFormat.
  const acceptedByIntl = (zone: string) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  };

  it('accepts every zone the runtime lists', () => {
    const listed = Intl.supportedValuesOf('timeZone');
    expect(listed.length).toBeGreaterThan(100);
    expect(listed.filter((zone) => !isValidTimeZone(zone))).toEqual([]);
  });

  it.each(['US/Eastern', 'Etc/GMT+5', 'europe/berlin', 'GMT', 'Europe/Berlinn', 'UTC+1', ' UTC'])(
    'answers %j as a DateTimeFormat would',
    (zone) => {
      expect(isValidTimeZone(zone)).toBe(acceptedByIntl(zone));
    },
  );
});
