/**
 * Where the phone keeps its API token: IndexedDB, because the service worker (which calls the
 * API when a notification button is pressed) cannot read the page's localStorage.
 */
const DATABASE = 'cairn-phone';
const STORE = 'settings';
const TOKEN_KEY = 'token';
/** The companion's id for this device's push subscription, to delete it on sign-out. */
const SUBSCRIPTION_KEY = 'push-subscription-id';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened'));
  });
}

async function run<T>(mode: IDBTransactionMode, action: (store: IDBObjectStore) => IDBRequest<T>) {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = action(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
    });
  } finally {
    db.close();
  }
}

export async function readToken(): Promise<string | null> {
  const value = await run<unknown>('readonly', (store) => store.get(TOKEN_KEY));
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export async function writeToken(token: string): Promise<void> {
  await run('readwrite', (store) => store.put(token, TOKEN_KEY));
}

export async function clearToken(): Promise<void> {
  await run('readwrite', (store) => store.delete(TOKEN_KEY));
}

export async function readSubscriptionId(): Promise<string | null> {
  const value = await run<unknown>('readonly', (store) => store.get(SUBSCRIPTION_KEY));
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export async function writeSubscriptionId(id: string): Promise<void> {
  await run('readwrite', (store) => store.put(id, SUBSCRIPTION_KEY));
}

export async function clearSubscriptionId(): Promise<void> {
  await run('readwrite', (store) => store.delete(SUBSCRIPTION_KEY));
}
