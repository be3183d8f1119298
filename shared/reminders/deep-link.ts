/**
 * Deep links back into Obsidian for a reminder (push notifications, the phone page):
 * `obsidian://open?vault=<vault>&file=<path>` and, for an inline reminder with a block id,
 * `#^<block id>` appended to the file parameter and encoded with it (`%23%5E`), which is how
 * Obsidian's `open` action reaches a block. Everything but unreserved characters is encoded
 * (parentheses too), so the link also survives inside a Markdown link.
 */

export function reminderDeepLink(vault: string, path: string, blockId?: string): string {
  const file = blockId === undefined ? path : `${path}#^${blockId.replace(/^\^/, '')}`;
  return `obsidian://open?vault=${encodeStrict(vault)}&file=${encodeStrict(file)}`;
}

function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
