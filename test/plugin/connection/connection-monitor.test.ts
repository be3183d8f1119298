import { describe, expect, it } from 'vitest';
import { ConnectionMonitor } from '../../../plugin/connection/connection-monitor';
import type { ConnectionState } from '../../../plugin/connection/connection-state';

/** A checker whose answers the test releases one by one, in any order. */
class ControlledChecker {
  private readonly pending: ((state: ConnectionState) => void)[] = [];

  checkConnection(): Promise<ConnectionState> {
    return new Promise((resolve) => this.pending.push(resolve));
  }

  answer(index: number, state: ConnectionState): void {
    const resolve = this.pending[index];
    if (!resolve) throw new Error(`no check #${index} is waiting`);
    resolve(state);
  }
}

describe('ConnectionMonitor', () => {
  it('gives a new subscriber the current state at once, and stops after unsubscribing', async () => {
    const monitor = new ConnectionMonitor({
      checkConnection: async () => ({ kind: 'not-configured' }),
    });
    const seen: string[] = [];
    const unsubscribe = monitor.subscribe((state) => seen.push(state.kind));
    expect(seen).toEqual(['checking']);
    await monitor.refresh();
    expect(seen).toEqual(['checking', 'checking', 'not-configured']);
    unsubscribe();
    await monitor.refresh();
    expect(seen).toHaveLength(3);
  });

  it('publishes only the newest of overlapping checks', async () => {
    const checker = new ControlledChecker();
    const monitor = new ConnectionMonitor(checker);
    const first = monitor.refresh();
    const second = monitor.refresh();
    checker.answer(1, { kind: 'unauthorized', message: 'newer' });
    await second;
    checker.answer(0, { kind: 'unreachable', message: 'stale' });
    await first;
    expect(monitor.current).toEqual({ kind: 'unauthorized', message: 'newer' });
  });

  it('turns a checker that throws into an unexpected state instead of rejecting', async () => {
    const monitor = new ConnectionMonitor({
      checkConnection: () => Promise.reject(new Error('transport exploded')),
    });
    await expect(monitor.refresh()).resolves.toEqual({
      kind: 'unexpected',
      message: 'transport exploded',
    });
    expect(monitor.current.kind).toBe('unexpected');
  });

  it('keeps showing the last result during a quiet check', async () => {
    const checker = new ControlledChecker();
    const monitor = new ConnectionMonitor(checker);
    const seen: string[] = [];
    monitor.subscribe((state) => seen.push(state.kind));
    const loud = monitor.refresh();
    checker.answer(0, { kind: 'not-configured' });
    await loud;
    const quiet = monitor.refresh({ quiet: true });
    expect(monitor.current.kind).toBe('not-configured');
    checker.answer(1, { kind: 'unreachable', message: 'down' });
    await quiet;
    expect(seen).toEqual(['checking', 'checking', 'not-configured', 'unreachable']);
  });
});
