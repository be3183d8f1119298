import { describe, expect, it } from 'vitest';
import { failed, runOne } from '../../../scripts/sync-sim/simulation';

/**
 * Seeds the 2,000-run check from seed 207177079 found failing (issue #23, still open): each
 * replays a known engine bug, so each is marked `it.fails`. When a fix makes a seed pass, its
 * test fails here: turn it into a plain `it` then, so the bug stays fixed.
 */
const OPEN_SEEDS: ReadonlyArray<readonly [seed: number, what: string]> = [
  [207177110, 'a file missing on a device (projects/plan.md)'],
  [207177374, 'a false conflict copy of Log.md'],
  [207178350, 'a conflict copy of a conflict copy'],
];

describe('sync-sim seeds still failing (issue #23)', () => {
  for (const [seed, what] of OPEN_SEEDS) {
    it.fails(`seed ${seed}: ${what}`, { timeout: 120_000 }, async () => {
      const result = await runOne(seed);
      expect(result.error).toBeUndefined();
      expect(failed(result)).toBe(false);
    });
  }
});
