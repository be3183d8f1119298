import { describe, expect, it } from 'vitest';
import type { PdfText } from '../../../companion/pdf/extract-text';
import { inTurn, PdfBusyError } from '../../../companion/pdf/pdf-reader';

/** A read that finishes when the test says so, recording how many run at once. */
function controlledReads() {
  const finishers: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const read = async (): Promise<PdfText> => {
    running++;
    most = Math.max(most, running);
    await new Promise<void>((done) => finishers.push(done));
    running--;
    return { pages: ['text'], numPages: 1 };
  };
  return { read, finishers, most: () => most, running: () => running };
}

const flush = () => new Promise((done) => setImmediate(done));

describe('inTurn (PDF parse slots)', () => {
  it('runs at most maxConcurrent reads, queues up to maxQueued, refuses beyond with a retry time', async () => {
    const reads = controlledReads();
    const read = inTurn(reads.read, { maxConcurrent: 2, maxQueued: 1 });
    const bytes = new Uint8Array();
    const first = read(bytes);
    const second = read(bytes);
    const third = read(bytes); // queued
    await flush();
    expect(reads.running()).toBe(2);
    const fourth = read(bytes).catch((error: unknown) => error);
    expect(await fourth).toBeInstanceOf(PdfBusyError);
    expect((await fourth) as PdfBusyError).toMatchObject({ retryAfterSeconds: 30 });

    reads.finishers.shift()!();
    await first;
    await flush();
    expect(reads.running()).toBe(2); // the queued one took the slot
    while (reads.finishers.length > 0) {
      reads.finishers.shift()!();
      await flush();
    }
    await Promise.all([second, third]);
    expect(reads.most()).toBe(2);
    expect(reads.running()).toBe(0);
    // All slots are free again.
    const again = [read(bytes), read(bytes), read(bytes)];
    await flush();
    expect(reads.running()).toBe(2);
    while (reads.finishers.length > 0) {
      reads.finishers.shift()!();
      await flush();
    }
    await Promise.all(again);
  });

  it('frees the slot when a read fails', async () => {
    let calls = 0;
    const read = inTurn(
      async () => {
        calls++;
        throw new Error('broken');
      },
      { maxConcurrent: 1, maxQueued: 0 },
    );
    await expect(read(new Uint8Array())).rejects.toThrow('broken');
    await expect(read(new Uint8Array())).rejects.toThrow('broken');
    expect(calls).toBe(2);
  });
});
