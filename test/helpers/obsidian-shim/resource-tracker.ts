/**
 * Counts what plugin code holds on to: intervals, pending timeouts, DOM event listeners
 * and Obsidian event references. A test starts recording before it loads the bundle and
 * asks after onunload what is still held; anything left is a leak with its origin named.
 */

interface TimerScope {
  setTimeout: (handler: () => void, ms?: number) => unknown;
  clearTimeout: (id: unknown) => void;
  setInterval: (handler: () => void, ms?: number) => unknown;
  clearInterval: (id: unknown) => void;
}

interface HeldListener {
  target: EventTarget;
  type: string;
  listener: unknown;
  capture: boolean;
}

export class ResourceTracker {
  private readonly intervals = new Set<unknown>();
  private readonly timeouts = new Set<unknown>();
  private readonly listeners: HeldListener[] = [];
  private readonly eventRefs = new Set<object>();
  private readonly restorers: (() => void)[] = [];
  /** Totals since recording began, to show the plugin really used what is counted. */
  readonly totals = { intervals: 0, timeouts: 0, listeners: 0, eventRefs: 0 };

  /** Wraps the timer functions of each scope (the window and Node's global). */
  trackTimers(...scopes: TimerScope[]): void {
    for (const scope of scopes) {
      const original = {
        setTimeout: scope.setTimeout,
        clearTimeout: scope.clearTimeout,
        setInterval: scope.setInterval,
        clearInterval: scope.clearInterval,
      };
      scope.setInterval = (handler, ms) => {
        const id = original.setInterval.call(scope, handler, ms);
        this.intervals.add(id);
        this.totals.intervals++;
        return id;
      };
      scope.clearInterval = (id) => {
        this.intervals.delete(id);
        original.clearInterval.call(scope, id);
      };
      scope.setTimeout = (handler, ms) => {
        const id: unknown = original.setTimeout.call(
          scope,
          () => {
            this.timeouts.delete(id);
            handler();
          },
          ms,
        );
        this.timeouts.add(id);
        this.totals.timeouts++;
        return id;
      };
      scope.clearTimeout = (id) => {
        this.timeouts.delete(id);
        original.clearTimeout.call(scope, id);
      };
      this.restorers.push(() => Object.assign(scope, original));
    }
  }

  /** Wraps add/removeEventListener on an EventTarget prototype. */
  trackDomListeners(eventTargetPrototype: EventTarget): void {
    const proto = eventTargetPrototype as EventTarget & Record<string, unknown>;
    const add = proto.addEventListener;
    const remove = proto.removeEventListener;
    const held = this.listeners;
    const totals = this.totals;
    proto.addEventListener = function (
      this: EventTarget,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | AddEventListenerOptions,
    ) {
      const capture = typeof options === 'boolean' ? options : (options?.capture ?? false);
      held.push({ target: this, type, listener, capture });
      totals.listeners++;
      add.call(this, type, listener, options);
    };
    proto.removeEventListener = function (
      this: EventTarget,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | EventListenerOptions,
    ) {
      const capture = typeof options === 'boolean' ? options : (options?.capture ?? false);
      const index = held.findIndex(
        (entry) =>
          entry.target === this &&
          entry.type === type &&
          entry.listener === listener &&
          entry.capture === capture,
      );
      if (index >= 0) held.splice(index, 1);
      remove.call(this, type, listener, options);
    };
    this.restorers.push(() => {
      proto.addEventListener = add;
      proto.removeEventListener = remove;
    });
  }

  eventRefAdded(ref: object): void {
    this.eventRefs.add(ref);
    this.totals.eventRefs++;
  }

  eventRefRemoved(ref: object): void {
    this.eventRefs.delete(ref);
  }

  /**
   * What is still held. A listener on an element that is no longer in the document dies
   * with the element, so only listeners on the window, the document or attached nodes count.
   */
  held(): { intervals: number; timeouts: number; eventRefs: number; listeners: string[] } {
    const listeners = this.listeners
      .filter(({ target }) => {
        const node = target as Partial<Node>;
        return node.isConnected === undefined || node.isConnected || node.nodeType === 9;
      })
      .map(({ target, type }) => `${describeTarget(target)} ${type}`);
    return {
      intervals: this.intervals.size,
      timeouts: this.timeouts.size,
      eventRefs: this.eventRefs.size,
      listeners,
    };
  }

  stop(): void {
    for (const restore of this.restorers.reverse()) restore();
    this.restorers.length = 0;
  }
}

function describeTarget(target: EventTarget): string {
  const element = target as Partial<Element>;
  if (element.tagName)
    return `<${element.tagName.toLowerCase()} class="${element.className ?? ''}">`;
  return target.constructor.name;
}
