/** Runs async work one piece at a time, in the order it was asked for. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work, work);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once everything asked for so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
