import { describe, expect, it } from 'vitest';
import { IdleReleasingEmbedder } from '../../../plugin/embeddings/idle-releasing-embedder';
import type {
  IdleTimers,
  ReleasableEmbedder,
} from '../../../plugin/embeddings/idle-releasing-embedder';
import { USE_LITE_MODEL } from '../../../shared/embeddings/use-lite-model';

/** Timers that fire only when the test advances time. */
class ManualTimers implements IdleTimers {
  now = 0;
  private readonly due = new Map<number, { at: number; callback: () => void }>();
  private next = 1;
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.due.set(id, { at: this.now + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }
  get pending(): number {
    return this.due.size;
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.due]) {
      if (timer.at <= this.now) {
        this.due.delete(id);
        timer.callback();
      }
    }
  }
}

/** Stands in for the worker: counts starts and stops; vectors say which start served them. */
function workers() {
  const log: string[] = [];
  let started = 0;
  const load = async (): Promise<ReleasableEmbedder> => {
    const serial = ++started;
    log.push(`start ${serial}`);
    return {
      model: USE_LITE_MODEL,
      embed: async (texts) => texts.map(() => Float32Array.of(serial)),
      close: () => log.push(`stop ${serial}`),
    };
  };
  return { log, load };
}

const settle = () => new Promise((done) => setTimeout(done, 0));

describe('IdleReleasingEmbedder', () => {
  it('stops the worker after the idle time and starts it again on the next call', async () => {
    const timers = new ManualTimers();
    const { log, load } = workers();
    const embedder = new IdleReleasingEmbedder(USE_LITE_MODEL, load, 300_000, timers);
    embedder.warmUp();
    await settle();
    expect(embedder.ready).toBe(true);
    expect(await embedder.embed(['a'])).toEqual([Float32Array.of(1)]);
    timers.advance(299_999);
    await settle();
    expect(log).toEqual(['start 1']);
    timers.advance(1);
    await settle();
    expect(log).toEqual(['start 1', 'stop 1']);
    expect(embedder.holding).toBe(false);

    expect(await embedder.embed(['b'])).toEqual([Float32Array.of(2)]);
    expect(log).toEqual(['start 1', 'stop 1', 'start 2']);
    embedder.close();
    await settle();
    expect(log).toEqual(['start 1', 'stop 1', 'start 2', 'stop 2']);
    // Closed: no timer left behind, and no more calls.
    expect(timers.pending).toBe(0);
    await expect(embedder.embed(['c'])).rejects.toThrow('the worker was stopped');
  });

  it('never stops while a call is in flight, and each call restarts the idle time', async () => {
    const timers = new ManualTimers();
    const { log } = workers();
    let finish: () => void = () => undefined;
    const slow = async (): Promise<ReleasableEmbedder> => ({
      model: USE_LITE_MODEL,
      embed: (texts) =>
        new Promise((resolve) => (finish = () => resolve(texts.map(() => Float32Array.of(1))))),
      close: () => log.push('stop'),
    });
    const embedder = new IdleReleasingEmbedder(USE_LITE_MODEL, slow, 1000, timers);
    const call = embedder.embed(['long batch']);
    await settle();
    timers.advance(5000);
    await settle();
    expect(log).toEqual([]);
    finish();
    await call;
    timers.advance(999);
    await settle();
    expect(log).toEqual([]);
    timers.advance(1);
    await settle();
    expect(log).toEqual(['stop']);
  });

  it('reports a load that failed to every call without retrying it', async () => {
    const timers = new ManualTimers();
    let attempts = 0;
    const flaky = async (): Promise<ReleasableEmbedder> => {
      attempts++;
      if (attempts === 1) throw new Error('cannot read model.json');
      return workers().load();
    };
    const embedder = new IdleReleasingEmbedder(USE_LITE_MODEL, flaky, 1000, timers);
    await expect(embedder.embed(['a'])).rejects.toThrow('cannot read model.json');
    await expect(embedder.embed(['b'])).rejects.toThrow('cannot read model.json');
    expect(embedder.loads).toBe(1);
    embedder.close();
  });
});
