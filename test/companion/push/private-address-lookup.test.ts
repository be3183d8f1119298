import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  PrivateAddressError,
  privateAddressGuard,
} from '../../../companion/push/private-address-lookup';
import type { LookupFunction } from '../../../companion/push/private-address-lookup';

/** A resolver answering from a table, in both callback forms Node uses. */
function fakeDns(table: Record<string, LookupAddress[]>): LookupFunction {
  return (hostname, options, callback) => {
    const found = table[hostname];
    if (!found) {
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
        '',
        0,
      );
      return;
    }
    if (options.all) callback(null, found);
    else callback(null, found[0]?.address ?? '', found[0]?.family ?? 4);
  };
}

function resolve(lookup: LookupFunction, hostname: string, all: boolean) {
  return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
    lookup(hostname, { all }, (error, address) => done({ error, address })),
  );
}

const dns = fakeDns({
  'fcm.googleapis.com': [{ address: '142.250.185.74', family: 4 }],
  'rebind.example': [{ address: '192.168.1.1', family: 4 }],
  'mixed.example': [
    { address: '2001:4860:4860::8888', family: 6 },
    { address: '10.0.0.1', family: 4 },
  ],
  'v6loop.example': [{ address: '::1', family: 6 }],
});

describe('privateAddressGuard', () => {
  it.each([false, true])('passes public answers through unchanged (all: %s)', async (all) => {
    const { error, address } = await resolve(privateAddressGuard(dns), 'fcm.googleapis.com', all);
    expect(error).toBeNull();
    expect(address).toEqual(all ? [{ address: '142.250.185.74', family: 4 }] : '142.250.185.74');
  });

  it.each([
    ['rebind.example', false],
    ['rebind.example', true],
    ['mixed.example', true],
    ['v6loop.example', false],
  ])('refuses %s (all: %s), naming the host', async (hostname, all) => {
    const { error } = await resolve(privateAddressGuard(dns), hostname, all);
    expect(error).toBeInstanceOf(PrivateAddressError);
    expect(error?.message).toBe(
      `${hostname} resolves to a loopback/private address, not a push service (list it in CAIRN_PUSH_HOSTS to allow it)`,
    );
  });

  it('passes resolver errors through', async () => {
    const { error } = await resolve(privateAddressGuard(dns), 'nowhere.example', false);
    expect(error?.code).toBe('ENOTFOUND');
  });
});
