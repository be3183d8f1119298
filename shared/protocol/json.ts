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
