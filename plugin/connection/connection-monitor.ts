/**
 * Holds the latest ConnectionState and tells subscribers when it changes. It follows the
 * Svelte store contract (`subscribe` calls back at once and returns an unsubscriber), so
 * a component reads it as `$connection` without importing anything from the plugin.
 */
import type { ConnectionState } from './connection-state';

export interface ConnectionChecker {
  checkConnection(): Promise<ConnectionState>;
}

export type ConnectionListener = (state: ConnectionState) => void;

export interface ReadableConnection {
  subscribe(listener: ConnectionListener): () => void;
}

export class ConnectionMonitor implements ReadableConnection {
  private state: ConnectionState = { kind: 'checking' };
  private readonly listeners = new Set<ConnectionListener>();
  private latestCheck = 0;

  constructor(private readonly checker: ConnectionChecker) {}

  get current(): ConnectionState {
    return this.state;
  }

  subscribe(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Checks again. When checks overlap (the user presses "Retry" while the periodic check
   * runs), only the newest result is published, so a slow stale answer never wins.
   * A quiet check (the periodic one) keeps showing the last result until the new one is
   * in, so the status bar does not flicker every few minutes.
   */
  async refresh(options: { quiet?: boolean } = {}): Promise<ConnectionState> {
    const check = ++this.latestCheck;
    if (!options.quiet) this.publish({ kind: 'checking' });
    let next: ConnectionState;
    try {
      next = await this.checker.checkConnection();
    } catch (error) {
      next = {
        kind: 'unexpected',
        message: error instanceof Error ? error.message : String(error),
      };
    }
    if (check === this.latestCheck) this.publish(next);
    return next;
  }

  private publish(state: ConnectionState): void {
    this.state = state;
    for (const listener of [...this.listeners]) listener(state);
  }
}
