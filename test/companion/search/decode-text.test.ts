import { describe, expect, it } from 'vitest';
import { decodeNoteBytes, firstInvalidUtf8Offset } from '../../../companion/search/decode-text';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('firstInvalidUtf8Offset', () => {
  it('accepts valid UTF-8 of every length', () => {
    expect(firstInvalidUtf8Offset(new TextEncoder().encode('aé€😀'))).toBe(-1);
    expect(firstInvalidUtf8Offset(bytes())).toBe(-1);
  });

  it.each([
    ['a lone continuation byte', bytes(0x61, 0x80), 1],
    ['an overlong 2-byte form', bytes(0xc0, 0xaf), 0],
    ['an overlong 3-byte form', bytes(0xe0, 0x80, 0xaf), 0],
    ['a truncated sequence at the end', bytes(0x61, 0xe2, 0x82), 1],
    ['a UTF-16 surrogate', bytes(0xed, 0xa0, 0x80), 0],
    ['a code point past U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ['Latin-1 é', bytes(0x43, 0x61, 0x66, 0xe9, 0x20), 3],
    ['0xFF', bytes(0xff), 0],
  ])('finds %s', (_name, input, offset) => {
    expect(firstInvalidUtf8Offset(input)).toBe(offset);
    // The decoder agrees that it is invalid.
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(input)).toThrow();
  });
});

describe('decodeNoteBytes', () => {
  it('decodes UTF-8 and drops a BOM', () => {
    expect(decodeNoteBytes(bytes(0xef, 0xbb, 0xbf, 0x68, 0x69))).toEqual({
      ok: true,
      text: 'hi',
      warnings: [],
    });
  });

  it('refuses a file with a NUL byte as binary', () => {
    expect(decodeNoteBytes(bytes(0x68, 0x00))).toEqual({
      ok: false,
      reason: 'binary file, not Markdown text (NUL byte at offset 1)',
    });
  });

  it('repairs invalid UTF-8 and names the line', () => {
    const result = decodeNoteBytes(bytes(0x61, 0x0a, 0x0a, 0x62, 0xff, 0x63));
    expect(result).toEqual({
      ok: true,
      text: 'a\n\nb\ufffdc',
      warnings: [
        'line 3: invalid UTF-8 (byte offset 4); bad bytes were replaced with U+FFFD. Re-save the note as UTF-8.',
      ],
    });
  });
});
