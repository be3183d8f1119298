/**
 * The pairing link the plugin shows as a QR code: `https://companion:8787/#token=…`. The token
 * travels in the fragment, which browsers never send to a server, so it stays out of logs.
 */
export function tokenFromFragment(hash: string): string | null {
  const fragment = hash.startsWith('#') ? hash.slice(1) : hash;
  const token = new URLSearchParams(fragment).get('token');
  return token !== null && token.trim() !== '' ? token.trim() : null;
}
