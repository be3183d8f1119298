import { writable } from 'svelte/store';
import type { Readable } from 'svelte/store';
import type { RelatedResult } from './related-notes';
import type { RelatedViewState } from './related-view-state';

export interface RelatedControllerDeps {
  /**
   * The ranking for `path`, or null while the index cannot answer yet; a promise when it comes
   * from the companion (phones without an index of their own).
   */
  compute: (path: string) => RelatedResult | null | Promise<RelatedResult | null>;
  titleOf: (path: string) => string;
  /** Words about the index to show beside the list ('' when it is current and hybrid). */
  status: (result: RelatedResult | null) => string;
  /** Runs `task` later (the adapter: a timeout); returns a cancel. */
  defer: (task: () => void, delayMs: number) => () => void;
  /**
   * Whether a related-notes view is on screen (not a background tab, not in a collapsed
   * sidebar). While it is not, nothing is ranked; `shown()` catches up. Default: always.
   */
  visible?: () => boolean;
}

/**
 * Waits this long after a file switch before ranking: the editor draws first, and flicking
 * through notes (quick switcher, back/forward) ranks only the one the user stops on.
 */
export const RELATED_SWITCH_DELAY_MS = 120;

/**
 * Keeps the related-notes view's state for the active note: ranks after a switch settles,
 * re-ranks when the index changes state, and drops work for notes no longer active. Nothing
 * is ranked while no view is on screen: the user switching files with the view hidden or
 * collapsed costs nothing, and the note shown when it comes back is ranked then.
 */
export class RelatedController {
  private readonly store = writable<RelatedViewState>({ kind: 'no-note' });
  private path: string | null = null;
  private cancel: (() => void) | null = null;
  /** A ranking was skipped while hidden: the next `shown()` does it. */
  private stale = false;
  /** Counts rankings started; an answer that arrives after a newer one started is dropped. */
  private generation = 0;

  constructor(private readonly deps: RelatedControllerDeps) {}

  get state(): Readable<RelatedViewState> {
    return this.store;
  }

  /** The active note changed (null: no Markdown note is active). */
  show(path: string | null): void {
    if (path === this.path) return;
    this.path = path;
    this.schedule(RELATED_SWITCH_DELAY_MS);
  }

  /** The index changed (loaded, a note re-indexed, vectors arrived): rank again now. */
  refresh(): void {
    this.schedule(0);
  }

  /** A view may have come on screen (tab switched, sidebar expanded): rank if one was skipped. */
  shown(): void {
    if (this.stale && this.cancel === null && (this.deps.visible?.() ?? true)) this.schedule(0);
  }

  dispose(): void {
    this.generation++;
    this.cancel?.();
    this.cancel = null;
  }

  private schedule(delayMs: number): void {
    this.cancel?.();
    this.cancel = this.deps.defer(() => {
      this.cancel = null;
      this.update();
    }, delayMs);
  }

  private update(): void {
    if (!(this.deps.visible?.() ?? true)) {
      this.stale = true;
      return;
    }
    this.stale = false;
    const path = this.path;
    if (path === null) {
      this.store.set({ kind: 'no-note' });
      return;
    }
    const title = this.deps.titleOf(path);
    const ticket = ++this.generation;
    const computed = this.deps.compute(path);
    if (!(computed instanceof Promise)) {
      this.publish(path, title, computed);
      return;
    }
    // The list shown stays until the answer comes; a failed answer is shown as waiting.
    const settled = (result: RelatedResult | null) => {
      if (ticket === this.generation && this.path === path) this.publish(path, title, result);
    };
    computed.then(settled, () => settled(null));
  }

  private publish(path: string, title: string, result: RelatedResult | null): void {
    const status = this.deps.status(result);
    if (result === null) {
      this.store.set({ kind: 'waiting', path, title, status });
      return;
    }
    this.store.set({ kind: 'ready', path, title, notes: result.notes, status });
  }
}
