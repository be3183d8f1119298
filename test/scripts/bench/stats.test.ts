import { describe, expect, it } from 'vitest';
import { generateVault, prng } from '../../../scripts/bench/generate-vault';
import { percentile, table } from '../../../scripts/bench/stats';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../companion/helpers/app';

describe('percentile', () => {
  it('is nearest-rank', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentile(values, 0.5)).toBe(3);
    expect(percentile(values, 0.95)).toBe(5);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('table', () => {
  it('pads the first column left and the rest right', () => {
    expect(
      table(
        ['name', 'ms'],
        [
          ['a', '1.0'],
          ['long name', '12.5'],
        ],
      ),
    ).toBe('name         ms\n---------  ----\na           1.0\nlong name  12.5');
  });
});

describe('generateVault', () => {
  it('is deterministic for a seed', () => {
    const a = tempDir('gen');
    const b = tempDir('gen');
    try {
      const first = generateVault(a.path, 20, 3);
      const second = generateVault(b.path, 20, 3);
      expect(first.bytes).toBe(second.bytes);
      const folder = readdirSync(a.path).sort()[0]!;
      const file = readdirSync(join(a.path, folder)).sort()[0]!;
      expect(readFileSync(join(a.path, folder, file), 'utf8')).toBe(
        readFileSync(join(b.path, folder, file), 'utf8'),
      );
      expect(readFileSync(join(a.path, folder, file), 'utf8')).toMatch(/^---\nid: gen-/);
    } finally {
      a.remove();
      b.remove();
    }
    expect(prng(1)()).toBe(prng(1)());
  });
});
