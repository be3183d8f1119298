import { describe, expect, it } from 'vitest';
import { parseSyncPairingLink, syncPairingLink } from '../../../shared/protocol/sync-pairing';

describe('sync pairing links', () => {
  it('carry url, device and token through a round trip, whatever characters they hold', () => {
    const pairing = {
      url: 'https://nas.tail1234.ts.net:8443',
      device: 'Ana’s Pixel 8 & tablet = 2',
      token: 'abc-DEF_123+/=',
    };
    const link = syncPairingLink({ ...pairing, url: `${pairing.url}/` });
    expect(link).toMatch(/^obsidian:\/\/cairn-sync-pair\?url=https%3A%2F%2F/);
    expect(parseSyncPairingLink(`  ${link}\n`)).toEqual({ ok: true, pairing });
  });

  it('reads + as a space and keeps the first of a repeated name', () => {
    const parsed = parseSyncPairingLink(
      'obsidian://cairn-sync-pair?url=https%3A%2F%2Fhome.example&device=Work+laptop&device=x&token=t0k3n-value-long-enough',
    );
    expect(parsed.ok && parsed.pairing.device).toBe('Work laptop');
  });
});
