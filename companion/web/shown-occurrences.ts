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
 * Records `tag` as shown at `now` and answers true, unless it was recorded before (then
 * false, and nothing changes). One read-write transaction, so two pushes of one occurrence
 * handled at once cannot both get true. Entries older than {@link SHOWN_KEEP_MS} go in the
 * same transaction.
 */
export async function firstShowing(tag: string, now: number): Promise<boolean> {
  const db = await open();
  try {
    return await new Promise<boolean>((resolve, reject) => {
      const transaction = db.transaction(STORE, 'readwrite');
      const store = transaction.objectStore(STORE);
      let first = false;
      const known = store.get(tag);
      known.onsuccess = () => {
        const at: unknown = known.result;
        first = typeof at !== 'number' || at < now - SHOWN_KEEP_MS;
        if (first) store.put(now, tag);
      };
      const cursor = store.openCursor();
      cursor.onsuccess = () => {
        const entry = cursor.result;
        if (!entry) return;
        const at: unknown = entry.value;
        if (entry.key !== tag && (typeof at !== 'number' || at < now - SHOWN_KEEP_MS)) {
          entry.delete();
        }
        entry.continue();
      };
      transaction.oncomplete = () => resolve(first);
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
