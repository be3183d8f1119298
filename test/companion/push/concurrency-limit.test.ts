import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../../companion/push/concurrency-limit';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order, and survives failures', async () => {
    const limit = new ConcurrencyLimit(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, index) =>
      limit.run(async () => {
        started.push(index);
        await gate.promise;
        if (index === 0) throw new Error('task 0 failed');
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limit.active).toBe(2);

    gates[0]!.resolve();
    await expect(runs[0]).rejects.toThrow('task 0 failed');
    expect(started).toEqual([0, 1, 2]);
    expect(limit.active).toBe(2);

    gates[2]!.resolve();
    gates[1]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs.slice(1))).toEqual([1, 2, 3]);
    expect(limit.active).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %s', (value) => {
    expect(() => new ConcurrencyLimit(value)).toThrow(/positive integer/);
  });
});
