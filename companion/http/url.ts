/** The path without its query string: queries may carry things that belong in neither logs nor messages. */
export function pathOnly(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
