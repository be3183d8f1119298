/**
 * Lowercase hex SHA-256 of a file's bytes: the name of a version in the sync protocol. WebCrypto
 * (`crypto.subtle`) exists in Obsidian on desktop and mobile, and in Node.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
