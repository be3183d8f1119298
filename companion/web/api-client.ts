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
  post<T>(path: string, body?: unknown): Promise<T>;
}

/** Calls the companion that served this page (same origin), with the bearer token. */
export function companionApi(token: string, fetchImpl: typeof fetch = fetch): CompanionApi {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetchImpl(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          // The audit log records the phone's writes as `phone` (companion/audit/audit-hooks.ts).
          'X-Cairn-Client': 'phone',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new CompanionApiError(0, 'UNREACHABLE', 'The companion cannot be reached.');
    }
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) {
      const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : {};
      throw new CompanionApiError(
        response.status,
        typeof error.code === 'string' ? error.code : `HTTP_${response.status}`,
        typeof error.message === 'string' ? error.message : `HTTP ${response.status}`,
      );
    }
    return parsed as T;
  }
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
