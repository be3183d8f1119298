import { describe, expect, it } from 'vitest';
import { noteDeepLink, reminderDeepLink } from '../../../shared/reminders/index';

describe('reminderDeepLink', () => {
  it.each([
    [
      'Vault',
      'Reminders/call-the-bank.md',
      undefined,
      'obsidian://open?vault=Vault&file=Reminders%2Fcall-the-bank.md',
    ],
    [
      'My Vault',
      'Projects/Errands.md',
      'r-7k2p',
      'obsidian://open?vault=My%20Vault&file=Projects%2FErrands.md%23%5Er-7k2p',
    ],
    ['v', 'a.md', '^r-7k2p', 'obsidian://open?vault=v&file=a.md%23%5Er-7k2p'],
    [
      "Bob's (home)",
      'Ä & ö/x#y?.md',
      undefined,
      'obsidian://open?vault=Bob%27s%20%28home%29&file=%C3%84%20%26%20%C3%B6%2Fx%23y%3F.md',
    ],
  ])('%s / %s / %s', (vault, path, blockId, link) => {
    expect(reminderDeepLink(vault, path, blockId)).toBe(link);
    expect(decodeURIComponent(new URL(link).searchParams.get('file') ?? '')).toBe(
      blockId === undefined ? path : `${path}#^${blockId.replace(/^\^/, '')}`,
    );
  });
});

describe('noteDeepLink', () => {
  it.each([
    [undefined, 'Travel/Visa rules.md'],
    [{ heading: 'Key points' }, 'Travel/Visa rules.md#Key points'],
    [{ blockId: '^r-x81c' }, 'Travel/Visa rules.md#^r-x81c'],
    [{ page: 12 }, 'Travel/Visa rules.md#page=12'],
  ] as const)('%j reaches %s', (target, file) => {
    const link = noteDeepLink('My Vault', 'Travel/Visa rules.md', target);
    expect(link.startsWith('obsidian://open?vault=My%20Vault&file=Travel%2FVisa%20rules.md')).toBe(
      true,
    );
    expect(new URL(link).searchParams.get('file')).toBe(file);
  });
});
