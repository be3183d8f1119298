import { isRecord } from '../../shared/protocol/json';

/** A failed API call, with the companion's error envelope (`{ error: { code, message } }`) unpacked. */
export class CompanionApiError extends Error {
  override name = 'CompanionApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CompanionApi {
  get<T>(path: string): Promise<T>;
  /** A GET whose body is text (e.g. a synced version's bytes); never from the offline copy. */
  getText(path: string): Promise<string>;
  /** `headers` adds request headers, e.g. `Idempotency-Key` so a retried action is applied once. */
  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  /** POSTs and hands back the open response (for Server-Sent Events); errors as for `post`. */
  stream(path: string, body: unknown, signal?: AbortSignal): Promise<Response>;
}

/**
 * The last answer of each GET, kept on the phone so the lists can still be shown while the
 * companion cannot be reached (issue #26, item 9). Cleared at sign-out.
 */
export interface ResponseCache {
  read(path: string): string | null;
  write(path: string, body: string): void;
}

/** Told whether the companion answered the last call (any HTTP answer) or could not be reached. */
export type ReachabilityListener = (reachable: boolean) => void;

interface SendOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

/** Calls the companion that served this page (same origin), with the bearer token. */
export function companionApi(
  token: string,
  fetchImpl: typeof fetch = fetch,
  offline: { cache?: ResponseCache; reachability?: ReachabilityListener } = {},
): CompanionApi {
  async function send(method: string, path: string, options: SendOptions = {}): Promise<Response> {
    const { body, headers = {}, signal } = options;
    let response: Response;
    try {
      response = await fetchImpl(path, {
        method,
        headers: {
          ...headers,
          Authorization: `Bearer ${token}`,
          // The audit log records the phone's writes as `phone` (companion/audit/audit-hooks.ts).
          'X-Cairn-Client': 'phone',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch {
      offline.reachability?.(false);
      throw new CompanionApiError(0, 'UNREACHABLE', 'The companion cannot be reached.');
    }
    offline.reachability?.(true);
    if (!response.ok) {
      const parsed = parseJson(await response.text());
      const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : {};
      throw new CompanionApiError(
        response.status,
        typeof error.code === 'string' ? error.code : `HTTP_${response.status}`,
        typeof error.message === 'string' ? error.message : `HTTP ${response.status}`,
      );
    }
    return response;
  }
  async function call<T>(method: string, path: string, options?: SendOptions): Promise<T> {
    const response = await send(method, path, options);
    return parseJson(await response.text()) as T;
  }
  /** A GET, or when the companion cannot be reached, its last answer from the cache. */
  async function cachedGet<T>(path: string): Promise<T> {
    let text: string;
    try {
      text = await (await send('GET', path)).text();
    } catch (error) {
      const kept =
        error instanceof CompanionApiError && error.status === 0 ? offline.cache?.read(path) : null;
      if (kept === null || kept === undefined) throw error;
      return parseJson(kept) as T;
    }
    try {
      offline.cache?.write(path, text);
    } catch {
      // A full storage quota only costs the offline copy.
    }
    return parseJson(text) as T;
  }
  return {
    get: (path) => cachedGet(path),
    getText: async (path) => (await send('GET', path)).text(),
    post: (path, body, headers) =>
      call('POST', path, { body: body ?? {}, ...(headers ? { headers } : {}) }),
    patch: (path, body) => call('PATCH', path, { body }),
    delete: async (path) => {
      await call('DELETE', path);
    },
    stream: (path, body, signal) => send('POST', path, { body, ...(signal ? { signal } : {}) }),
  };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
