/** The path without its query string: queries may carry things that belong in neither logs nor messages. */
export function pathOnly(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The path as it may be logged: without the query, and with the calendar feed's secret (the
 * credential of `/api/v1/calendar/<secret>.ics`, see calendar/calendar-routes.ts) replaced.
 */
export function loggablePath(url: string): string {
  return pathOnly(url).replace(/^(\/api\/v1\/calendar\/)(?!week$)[^/]+$/, '$1[redacted]');
}
