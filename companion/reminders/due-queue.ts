/**
 * Reminder ids ordered by their next due instant: a binary min-heap with a position index, so
 * the earliest is read in O(1) and one reminder's due time is set or removed in O(log n). This
 * is what keeps a re-plan after one edited note cheap among 10k reminders: only the changed
 * entries move. Ties are broken by id, so firing order is deterministic.
 */
export class DueQueue {
  private readonly heap: { id: string; due: number }[] = [];
  private readonly position = new Map<string, number>();

  get size(): number {
    return this.heap.length;
  }

  /** The earliest entry, or undefined when empty. */
  peek(): { readonly id: string; readonly due: number } | undefined {
    return this.heap[0];
  }

  dueOf(id: string): number | undefined {
    const index = this.position.get(id);
    return index === undefined ? undefined : this.heap[index]!.due;
  }

  /** Inserts, moves or (with `due` undefined) removes `id`. */
  set(id: string, due: number | undefined): void {
    if (due === undefined) {
      this.delete(id);
      return;
    }
    if (!Number.isFinite(due)) throw new RangeError(`due time of ${id} is not a finite number`);
    const index = this.position.get(id);
    if (index === undefined) {
      this.heap.push({ id, due });
      this.position.set(id, this.heap.length - 1);
      this.up(this.heap.length - 1);
      return;
    }
    const entry = this.heap[index]!;
    const earlier = due < entry.due;
    entry.due = due;
    if (earlier) this.up(index);
    else this.down(index);
  }

  delete(id: string): boolean {
    const index = this.position.get(id);
    if (index === undefined) return false;
    const last = this.heap.pop()!;
    this.position.delete(id);
    if (index < this.heap.length) {
      this.heap[index] = last;
      this.position.set(last.id, index);
      this.up(index);
      this.down(index);
    }
    return true;
  }

  ids(): IterableIterator<string> {
    return this.position.keys();
  }

  clear(): void {
    this.heap.length = 0;
    this.position.clear();
  }

  private less(a: number, b: number): boolean {
    const left = this.heap[a]!;
    const right = this.heap[b]!;
    return left.due < right.due || (left.due === right.due && left.id < right.id);
  }

  private swap(a: number, b: number): void {
    const left = this.heap[a]!;
    const right = this.heap[b]!;
    this.heap[a] = right;
    this.heap[b] = left;
    this.position.set(right.id, a);
    this.position.set(left.id, b);
  }

  private up(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.less(child, parent)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private down(index: number): void {
    const length = this.heap.length;
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < length && this.less(left, smallest)) smallest = left;
      if (right < length && this.less(right, smallest)) smallest = right;
      if (smallest === parent) return;
      this.swap(parent, smallest);
      parent = smallest;
    }
  }
}
