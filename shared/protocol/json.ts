/*
 * Narrowing of values parsed from JSON (a settings file, an API response, a tool call's
 * arguments), and the one stable order for strings, used wherever a list must come out the same
 * on every machine (ids, paths, titles).
 */

/** A plain JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Orders strings by UTF-16 code unit, as `Array.prototype.sort` does by default: unlike
 * `localeCompare` it does not depend on the runtime's locale data, so the same list sorts the
 * same on a server, a phone and in CI.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `JSON.parse` for an HTTP body that may not be JSON at all (a proxy's HTML error page, an empty
 * 204): undefined instead of an exception, so callers report the status rather than a parse error.
 */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The message of a Cairn `{ "error": { "message" } }` or an Ollama `{ "error": "…" }` body. */
export function errorBodyMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return undefined;
}
