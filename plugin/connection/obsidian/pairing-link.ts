/**
 * The phone pairing link (companion/README.md): `<companion url>/#token=<token>`. The token travels in the
 * fragment, which browsers never send to a server, and the phone page reads it from there.
 * Pure, so it is tested without Obsidian.
 */
import { checkHttpUrl } from '../../../shared/settings/validation';

export type PairingLink = { ok: true; link: string } | { ok: false; reason: string };

export function pairingLink(url: string, token: string): PairingLink {
  if (url.trim() === '') return { ok: false, reason: 'Set the companion URL above first.' };
  const checked = checkHttpUrl(url);
  if (!checked.ok) return { ok: false, reason: `Companion URL: ${checked.message}` };
  const trimmed = token.trim();
  if (trimmed === '') return { ok: false, reason: 'Set the companion token above first.' };
  if (/\s/.test(trimmed)) return { ok: false, reason: 'The token must not contain spaces.' };
  const base = checked.url.replace(/\/+$/, '');
  return { ok: true, link: `${base}/#token=${encodeURIComponent(trimmed)}` };
}
