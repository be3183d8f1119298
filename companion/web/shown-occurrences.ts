/**
 * Which occurrences this phone has already shown, so one occurrence is shown at most once
 * (docs/delivery.md): the companion sends a message again when a kill left it unsure whether
 * the push service took the first (at least once), and without this a person who had already
 * dismissed, or acted on, the first would see the reminder come back.
 *
 * IndexedDB, because the service worker is stopped between pushes and keeps nothing in memory;
 * its own database, so the page's `cairn-phone` (token-store.ts) keeps its version.
 */
const DATABASE = 'cairn-notifications';
const STORE = 'shown';

/**
 * How long a shown occurrence is remembered. A repeat is sent within the companion's grace
 * window (24 h by default) and held by the push service at most for its TTL (≤ 24 h), so a
 * week is more than either; older entries are dropped as new ones come.
 */
export const SHOWN_KEEP_MS = 7 * 86_400_000;

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened'));
  });
}

/**
 * Where an occurrence stands on this phone: never claimed (`first`), claimed by a push whose
 * notification is not known to have reached the screen (`unfinished`: still being shown by a
 * push handled at the same moment, or the worker was stopped in between), or `shown`.
 */
export type ShowingState = 'first' | 'unfinished' | 'shown';

/**
 * One entry: when the occurrence was claimed, and whether its notification was shown. A bare
 * number is an entry from before `shown` was kept, written after the notification was shown.
 */
type ShownEntry = { at: number; shown: boolean } | number;

function entryTime(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { at?: unknown }).at === 'number'
  ) {
    return (value as { at: number }).at;
  }
  return undefined;
}

function entryShown(value: unknown): boolean {
  return typeof value === 'number' || (value as { shown?: unknown }).shown === true;
}

/**
 * Claims `tag` at `now`: answers `first` and records it (not yet shown) unless a live entry
 * exists, then answers what that entry says and changes nothing. One read-write transaction,
 * so two pushes of one occurrence handled at once cannot both get `first`. Entries older than
 * {@link SHOWN_KEEP_MS} go in the same transaction.
 */
export async function claimShowing(tag: string, now: number): Promise<ShowingState> {
  const db = await open();
  try {
    return await new Promise<ShowingState>((resolve, reject) => {
      const transaction = db.transaction(STORE, 'readwrite');
      const store = transaction.objectStore(STORE);
      let state: ShowingState = 'first';
      const known = store.get(tag);
      known.onsuccess = () => {
        const value: unknown = known.result;
        const at = entryTime(value);
        if (at === undefined || at < now - SHOWN_KEEP_MS) {
          const entry: ShownEntry = { at: now, shown: false };
          store.put(entry, tag);
        } else {
          state = entryShown(value) ? 'shown' : 'unfinished';
        }
      };
      const cursor = store.openCursor();
      cursor.onsuccess = () => {
        const entry = cursor.result;
        if (!entry) return;
        const at = entryTime(entry.value);
        if (entry.key !== tag && (at === undefined || at < now - SHOWN_KEEP_MS)) entry.delete();
        entry.continue();
      };
      transaction.oncomplete = () => resolve(state);
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB write failed'));
      transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB write aborted'));
    });
  } finally {
    db.close();
  }
}

/**
 * Records that `tag`'s notification reached the screen, so a later repeat that finds none
 * there knows the person dismissed it. Written only after `showNotification` resolved: a
 * worker stopped before this leaves the entry `unfinished`, and a repeat then shows it again
 * (a repeat seen is better than a reminder lost).
 */
export async function markShown(tag: string, now: number): Promise<void> {
  const db = await open();
  try {
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction(STORE, 'readwrite');
      const store = transaction.objectStore(STORE);
      const known = store.get(tag);
      known.onsuccess = () => {
        const entry: ShownEntry = { at: entryTime(known.result) ?? now, shown: true };
        store.put(entry, tag);
      };
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB write failed'));
      transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB write aborted'));
    });
  } finally {
    db.close();
  }
}

/** Forgets `tag` (its notification could not be shown, so a repeat must show it). */
export async function forgetShowing(tag: string): Promise<void> {
  const db = await open();
  try {
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction(STORE, 'readwrite');
      transaction.objectStore(STORE).delete(tag);
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB write failed'));
    });
  } finally {
    db.close();
  }
}
