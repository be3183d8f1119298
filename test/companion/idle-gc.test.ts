import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectGarbage, collectStartupGarbage } from '../../companion/idle-gc';
import { createLogger } from '../../companion/logging';

afterEach(() => {
  vi.useRealTimers();
});

describe('idle GC', () => {
  it('collects without --expose-gc on the command line, and frees what is dead', () => {
    const made = (() => Array.from({ length: 200_000 }, (_, i) => ({ i })).length)();
    expect(made).toBe(200_000); // and dead: nothing holds the objects
    const used = process.memoryUsage().heapUsed;
    const ms = collectGarbage();
    expect(ms).toEqual(expect.any(Number));
    expect(process.memoryUsage().heapUsed).toBeLessThan(used);
  });

  it('collects once the work settles and again later, then logs one line with the RSS', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    collectStartupGarbage(logger, 10_000);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'start-up work settled; its garbage collected',
      ms: expect.any(Number),
      rssBeforeMb: expect.any(Number),
      rssAfterMb: expect.any(Number),
    });
  });
});
