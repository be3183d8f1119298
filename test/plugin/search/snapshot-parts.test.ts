import { describe, expect, it } from 'vitest';
import { joinLargeFields, splitLargeFields } from '../../../plugin/search/snapshot-parts';

describe('splitLargeFields / joinLargeFields', () => {
  const value = {
    version: 1,
    small: 'abc',
    terms: 'x'.repeat(45) + 'yz',
    index: {
      docs: [Uint32Array.from({ length: 30 }, (_, i) => i * 7), new Uint32Array(2)],
      tfs: [Uint16Array.from({ length: 17 }, (_, i) => i)],
      termTable: new Int32Array([1, -1, 2]),
    },
    missing: undefined,
  };

  it('stores fields over the limit in parts and joins them back to equal values', async () => {
    const split = splitLargeFields(value, 16);
    // 47 chars at 8 a part, 120 bytes at 16, 34 bytes at 16, the 12-byte table stays.
    expect(split.parts.length).toBe(6 + 8 + 3);
    const main = split.main as { small: string; index: { termTable: Int32Array } };
    expect(main.small).toBe('abc');
    expect(main.index.termTable).toBe(value.index.termTable);
    const stored = split.parts.map((part) => part());
    const joined = await joinLargeFields(structuredClone(split.main), async (part) => stored[part]);
    expect(joined).toEqual(value);
  });

  it('refuses a missing, mistyped or short part, naming it', async () => {
    const split = splitLargeFields(value, 16);
    const stored = split.parts.map((part) => part());
    await expect(
      joinLargeFields(split.main, async (part) => (part === 7 ? undefined : stored[part])),
    ).rejects.toThrow(/part 7/);
    await expect(
      joinLargeFields(split.main, async (part) => (part === 2 ? 42 : stored[part])),
    ).rejects.toThrow(/part 2 is not text/);
    await expect(
      joinLargeFields(split.main, async (part) =>
        part === 15 ? new Uint16Array(0) : stored[part],
      ),
    ).rejects.toThrow(/parts 14–16 hold 9 of 17 values/);
  });
});
