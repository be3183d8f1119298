import { describe, expect, it } from 'vitest';
import { isUuid, newNoteId, newShortId } from '../../../shared/markdown/note-id';

function seeded(seed: number) {
  let state = seed;
  return (count: number) =>
    Uint8Array.from({ length: count }, () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state >>> 24;
    });
}

describe('note ids', () => {
  it('formats 16 random bytes as a version 4 UUID', () => {
    expect(newNoteId(() => new Uint8Array(16))).toBe('00000000-0000-4000-8000-000000000000');
    expect(newNoteId(() => new Uint8Array(16).fill(255))).toBe(
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
    );
    const random = seeded(1);
    const ids = new Set(Array.from({ length: 1000 }, () => newNoteId(random)));
    expect(ids.size).toBe(1000);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('works with the platform crypto source and does not mutate its bytes', () => {
    const source = new Uint8Array(16).fill(0xff);
    newNoteId(() => source);
    expect(source[6]).toBe(0xff);
    expect(
      isUuid(newNoteId((count) => globalThis.crypto.getRandomValues(new Uint8Array(count)))),
    ).toBe(true);
  });

  it('makes four-hex short ids', () => {
    expect(newShortId(() => Uint8Array.from([0x3f, 0x9a]))).toBe('3f9a');
  });

  it('refuses a random source that gives too few bytes', () => {
    expect(() => newNoteId(() => new Uint8Array(4))).toThrow(/4 bytes, 16 needed/);
  });

  it('recognises UUIDs', () => {
    expect(isUuid('0F8C6F1E-6A55-4A53-9A7C-1D2B1C7F4E10')).toBe(true);
    expect(isUuid('0f8c6f1e6a554a539a7c1d2b1c7f4e10')).toBe(false);
  });
});
