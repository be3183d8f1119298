/**
 * Deep links back into Obsidian (push notifications, the phone page, citations):
 * `obsidian://open?vault=<vault>&file=<path>`, with an optional place inside the file appended
 * to the file parameter and encoded with it, which is how Obsidian's `open` action reaches it:
 * `#^<block id>` (`%23%5E…`), `#<heading>` (`%23…`), or `#page=<n>` for a PDF. Obsidian's own
 * `open` action has no line parameter, so a line range falls back to its heading. Everything
 * but unreserved characters is encoded (parentheses too), so the link also survives inside a
 * Markdown link.
 */

/** A place inside a file that Obsidian's `open` action can scroll to. */
export type DeepLinkTarget = { blockId: string } | { heading: string } | { page: number };

export function noteDeepLink(vault: string, path: string, target?: DeepLinkTarget): string {
  return `obsidian://open?vault=${encodeStrict(vault)}&file=${encodeStrict(path + subpath(target))}`;
}

export function reminderDeepLink(vault: string, path: string, blockId?: string): string {
  return noteDeepLink(vault, path, blockId === undefined ? undefined : { blockId });
}

function subpath(target: DeepLinkTarget | undefined): string {
  if (target === undefined) return '';
  if ('blockId' in target) return `#^${target.blockId.replace(/^\^/, '')}`;
  if ('heading' in target) return `#${target.heading}`;
  return `#page=${target.page}`;
}

function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
