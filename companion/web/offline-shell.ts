/**
 * The page's offline shell, kept by the service worker: the HTML, script, stylesheet, manifest
 * and icon are cached at install, and a page load that cannot reach the companion gets them
 * from the cache, so Cairn opens on a phone with no connection (and says the companion cannot
 * be reached) instead of showing the browser's error page.
 *
 * Network first: the companion serves every file `no-cache` so an update reaches phones at
 * once; the cache is only the fallback, refreshed by every successful load. API calls are never
 * cached (they carry the token and live data).
 */

/** Bumped when the list changes; older caches are deleted on activate. */
export const SHELL_CACHE = 'cairn-shell-v1';

export const SHELL_FILES = [
  '/',
  '/app.js',
  '/styles.css',
  '/manifest.webmanifest',
  '/icons/icon-192.png',
] as const;

interface ExtendableEventLike extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEventLike extends ExtendableEventLike {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}
export interface OfflineShellScope {
  readonly location: { readonly origin: string };
  addEventListener(
    type: 'install' | 'activate',
    listener: (event: ExtendableEventLike) => void,
  ): void;
  addEventListener(type: 'fetch', listener: (event: FetchEventLike) => void): void;
}

export function registerOfflineShell(scope: OfflineShellScope, cacheStorage: CacheStorage): void {
  scope.addEventListener('install', (event) => {
    // A failed precache must not block the worker (notifications matter more than offline).
    event.waitUntil(
      cacheStorage
        .open(SHELL_CACHE)
        .then((cache) => cache.addAll([...SHELL_FILES]))
        .catch(() => undefined),
    );
  });
  scope.addEventListener('activate', (event) => {
    event.waitUntil(
      cacheStorage
        .keys()
        .then((names) =>
          Promise.all(
            names
              .filter((name) => name.startsWith('cairn-shell-') && name !== SHELL_CACHE)
              .map((name) => cacheStorage.delete(name)),
          ),
        ),
    );
  });
  scope.addEventListener('fetch', (event) => {
    const shellPath = shellPathOf(event.request, scope.location.origin);
    if (shellPath === null) return;
    event.respondWith(networkFirst(event.request, shellPath, cacheStorage));
  });
}

/** The cached path a request is for, or null when the worker should not touch it. */
export function shellPathOf(
  request: { method: string; url: string; mode?: string },
  origin: string,
): string | null {
  if (request.method !== 'GET') return null;
  const url = new URL(request.url);
  if (url.origin !== origin) return null;
  // Any navigation inside the page (e.g. `/#token=…` or `/?x`) is the page itself.
  if (request.mode === 'navigate' && url.pathname === '/') return '/';
  return (SHELL_FILES as readonly string[]).includes(url.pathname) ? url.pathname : null;
}

async function networkFirst(
  request: Request,
  shellPath: string,
  cacheStorage: CacheStorage,
): Promise<Response> {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const copy = response.clone();
      void cacheStorage
        .open(SHELL_CACHE)
        .then((cache) => cache.put(shellPath, copy))
        .catch(() => undefined);
    }
    return response;
  } catch (error) {
    const cached = await cacheStorage.match(shellPath, { cacheName: SHELL_CACHE });
    if (cached) return cached;
    throw error;
  }
}
