import { describe, expect, it } from 'vitest';
import { portableNameProblem } from '../../../shared/markdown/portable-name';

describe('portableNameProblem', () => {
  it('accepts ordinary names in any script, emoji with joiners, dots inside', () => {
    for (const name of [
      'Call the bank.md',
      'Заметки',
      '会议记录.md',
      '👨‍👩‍👧 family',
      'v1.2 notes',
      'conference.md',
      'com10',
      'x'.repeat(255),
    ]) {
      expect(portableNameProblem(name), name).toBeNull();
    }
  });

  it('refuses Windows device names with or without extension, in any case', () => {
    for (const name of [
      'con',
      'CON',
      'aux.md',
      'Nul.txt',
      'com1',
      'COM9.md',
      'lpt1',
      'LPT¹.md',
      'prn .md',
    ]) {
      expect(portableNameProblem(name), name).toMatch(/reserved device name/);
    }
  });

  it('refuses characters Windows refuses, trailing dots and spaces', () => {
    for (const name of ['a*b', 'a?b', 'a<b', 'a>b', 'a|b', 'a"b', 'a:b']) {
      expect(portableNameProblem(name), name).toMatch(/Windows refuses/);
    }
    expect(portableNameProblem('notes.')).toMatch(/ends with a dot or space/);
    expect(portableNameProblem('notes ')).toMatch(/ends with a dot or space/);
  });

  it('refuses control, bidi and invisible characters', () => {
    expect(portableNameProblem('a\u0007b')).toMatch(/control character/);
    expect(portableNameProblem('a\u0085b')).toMatch(/control character/);
    for (const name of ['evil\u202egpj.md', 'a\u200fb', 'a\u2066b', '\ufeffnote', 'a\u200bb']) {
      expect(portableNameProblem(name), name).toMatch(/text-direction/);
    }
  });

  it('refuses full-width dot and slash tricks, judged after folding', () => {
    expect(portableNameProblem('\uff0e\uff0e')).toMatch(/starts with a dot.*folded/);
    expect(portableNameProblem('a\uff0fb')).toMatch(/"\/".*folded/);
    expect(portableNameProblem('note\uff0e')).toMatch(/ends with a dot.*folded/);
  });

  it('refuses names over 255 bytes in UTF-8, counting bytes not characters', () => {
    expect(portableNameProblem('x'.repeat(256))).toMatch(/256 bytes long/);
    expect(portableNameProblem('é'.repeat(128))).toMatch(/256 bytes long/);
    expect(portableNameProblem('é'.repeat(127))).toBeNull();
  });
});
