/**
 * What the user sees of sync (docs/sync.md "Status"): one state, in words, with what to do. Fed
 * by every request the engine makes (`ObservedSyncApi`), the engine's events and the held
 * batches; read by the status bar item and the sync view. Pure: time comes from the caller.
 */
import { SyncRequestError } from './sync-client';
import type { SyncApi } from './sync-client';

export type SyncStatusKind =
  | 'off'
  | 'paused'
  | 'synced'
  | 'syncing'
  | 'offline'
  /** A held mass delete waits for the user on this device. */
  | 'waiting'
  | 'error';

export interface HeldDeletes {
  readonly hold: string;
  readonly paths: readonly string[];
  readonly files: number;
}

export interface SyncStatusSnapshot {
  readonly kind: SyncStatusKind;
  /** One line: "Synced", "Syncing 3 files", "Offline", … */
  readonly title: string;
  /** Why, and what to do (empty when all is well). */
  readonly detail: string;
  /** The last time everything known was synced (ms), or null. */
  readonly lastSynced: number | null;
  readonly held: readonly HeldDeletes[];
  /** Files moved up or down in the current busy stretch. */
  readonly files: number;
}

export class SyncStatus {
  private kind: SyncStatusKind = 'off';
  private detail = '';
  private lastSynced: number | null = null;
  private inFlight = 0;
  private files = 0;
  private held: HeldDeletes[] = [];
  private readonly listeners = new Set<(snapshot: SyncStatusSnapshot) => void>();

  constructor(private readonly now: () => number) {}

  subscribe(listener: (snapshot: SyncStatusSnapshot) => void): () => void {
    this.listeners.add(listener);
    listener(this.snapshot());
    return () => this.listeners.delete(listener);
  }

  snapshot(): SyncStatusSnapshot {
    const kind = this.held.length > 0 && this.kind !== 'off' ? 'waiting' : this.kind;
    return {
      kind,
      title: titleOf(kind, this.files, this.held),
      detail: kind === 'waiting' ? waitingDetail(this.held) : this.detail,
      lastSynced: this.lastSynced,
      held: this.held,
      files: this.files,
    };
  }

  /** Sync is off on this device (not paired, or turned off), or paused here. */
  stopped(kind: 'off' | 'paused', detail = ''): void {
    this.kind = kind;
    this.detail = detail;
    this.inFlight = 0;
    this.files = 0;
    this.emit();
  }

  started(): void {
    this.kind = 'syncing';
    this.detail = '';
    this.emit();
  }

  /** A request is on its way; `moves` is true for one that moves a file's bytes. */
  requestStarted(moves: boolean): void {
    this.inFlight++;
    if (moves) this.files++;
    if (this.kind !== 'off' && this.kind !== 'paused') this.kind = 'syncing';
    this.emit();
  }

  requestEnded(error: unknown): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.kind === 'off' || this.kind === 'paused') return;
    if (error !== undefined) {
      const problem = describeFailure(error);
      this.kind = problem.kind;
      this.detail = problem.detail;
      this.emit();
      return;
    }
    if (this.inFlight === 0) {
      this.kind = 'synced';
      this.detail = '';
      this.files = 0;
      this.lastSynced = this.now();
    }
    this.emit();
  }

  /** The long poll answered (or waits): the connection is fine, nothing moves. */
  pollAnswered(): void {
    if (this.kind === 'offline' || this.kind === 'error') {
      this.kind = this.inFlight === 0 ? 'synced' : 'syncing';
      this.detail = '';
      if (this.inFlight === 0) this.lastSynced = this.now();
      this.emit();
    }
  }

  setHeld(held: readonly HeldDeletes[]): void {
    this.held = [...held];
    this.emit();
  }

  /** The runner stopped for good or will retry: said in words. */
  failed(error: unknown): void {
    if (this.kind === 'off' || this.kind === 'paused') return;
    const problem = describeFailure(error);
    this.kind = problem.kind;
    this.detail = problem.detail;
    this.emit();
  }

  private emit(): void {
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}

function titleOf(kind: SyncStatusKind, files: number, held: readonly HeldDeletes[]): string {
  switch (kind) {
    case 'off':
      return 'Sync is off';
    case 'paused':
      return 'Paused on this device';
    case 'synced':
      return 'Synced';
    case 'syncing':
      return files > 0 ? `Syncing ${files} file${files === 1 ? '' : 's'}` : 'Syncing';
    case 'offline':
      return 'Offline';
    case 'waiting': {
      const count = held.reduce((sum, batch) => sum + batch.paths.length, 0);
      return `Waiting for you: ${count} deletes held`;
    }
    case 'error':
      return 'Sync stopped';
  }
}

function waitingDetail(held: readonly HeldDeletes[]): string {
  const count = held.reduce((sum, batch) => sum + batch.paths.length, 0);
  return `This device deleted ${count} files at once. Nothing is deleted anywhere until you confirm here; if it was not meant, choose “Keep the files” and they come back on this device.`;
}

/** A failure in words: offline (it retries) or an error with what to do. */
export function describeFailure(error: unknown): { kind: 'offline' | 'error'; detail: string } {
  if (!(error instanceof SyncRequestError)) {
    return {
      kind: 'error',
      detail: `${error instanceof Error ? error.message : String(error)}. Cairn retries on its own; if it keeps failing, run "Sync now" and look in the developer console.`,
    };
  }
  switch (error.code) {
    case 'UNREACHABLE':
      return {
        kind: 'offline',
        detail: `The companion cannot be reached (${error.message}). Edits stay on this device and sync when it is back; Cairn keeps trying.`,
      };
    case 'UNAUTHORIZED':
      return {
        kind: 'error',
        detail:
          'The companion refused this device’s token (revoked, or without the sync scope). Pair this device again: "Cairn: Pair this device with the companion".',
      };
    case 'NOT_CONFIGURED':
      return {
        kind: 'error',
        detail: `${error.message}. Pair this device: "Cairn: Pair this device with the companion".`,
      };
    case 'BAD_ANSWER':
      return {
        kind: 'error',
        detail: `The answer was not the companion’s (${error.message}). A proxy in between may change it; check the address.`,
      };
    case 'RATE_LIMITED': {
      const wait =
        error.retryAfterMs === undefined ? '' : ` in ${Math.ceil(error.retryAfterMs / 1000)} s`;
      return {
        kind: 'offline',
        detail: `The companion asked this device to slow down (${error.message}). Nothing is lost; Cairn continues${wait}.`,
      };
    }
    case 'HTTP_ERROR':
      if (error.status === 507) {
        return {
          kind: 'error',
          detail: 'The companion’s disk is full or read-only. Free space there; Cairn retries.',
        };
      }
      if (error.status !== undefined && error.status >= 500) {
        return {
          kind: 'offline',
          detail: `The companion is busy or restarting (${error.message}). Cairn retries.`,
        };
      }
      return { kind: 'error', detail: `${error.message}.` };
  }
}

/** Wraps the engine's API so every request is seen by the status (nothing else changes). */
export class ObservedSyncApi implements SyncApi {
  constructor(
    private readonly inner: SyncApi,
    private readonly status: SyncStatus,
  ) {}

  async changes(
    since: number,
    options?: { limit?: number; wait?: number; settings?: boolean },
  ): ReturnType<SyncApi['changes']> {
    if (options?.wait !== undefined && options.wait > 0) {
      // The long poll: waiting is not syncing.
      try {
        const answer = await this.inner.changes(since, options);
        this.status.pollAnswered();
        return answer;
      } catch (error) {
        this.status.failed(error);
        throw error;
      }
    }
    return this.observe(false, () => this.inner.changes(since, options));
  }

  getBlob(hash: string): Promise<Uint8Array> {
    return this.observe(true, () => this.inner.getBlob(hash));
  }

  getBlobs(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    return this.observe(true, () => this.inner.getBlobs(hashes));
  }

  putBlob(hash: string, bytes: Uint8Array): Promise<void> {
    return this.observe(true, () => this.inner.putBlob(hash, bytes));
  }

  commit(...args: Parameters<SyncApi['commit']>): ReturnType<SyncApi['commit']> {
    return this.observe(false, () => this.inner.commit(...args));
  }

  confirm(hold: string): ReturnType<SyncApi['confirm']> {
    return this.observe(false, () => this.inner.confirm(hold));
  }

  private async observe<T>(moves: boolean, call: () => Promise<T>): Promise<T> {
    this.status.requestStarted(moves);
    try {
      const result = await call();
      this.status.requestEnded(undefined);
      return result;
    } catch (error) {
      this.status.requestEnded(error);
      throw error;
    }
  }
}
