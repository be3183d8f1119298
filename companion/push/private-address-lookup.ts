import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isPrivateAddress } from './endpoint-policy';

/*
 * The second half of the SSRF guard (endpoint-policy.ts is the first): a push endpoint with a
 * public-looking name whose DNS answers 192.168.1.1 must not reach the router. Checking the name
 * once at subscribe time would not do (DNS can change, or answer differently a second later), so
 * this runs as the connection's own `lookup`: the addresses checked are the ones connected to.
 */

export class PrivateAddressError extends Error {
  override name = 'PrivateAddressError';
  readonly code = 'EPRIVATEADDRESS';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** Node's `lookup` signature as net/tls call it (with `all: true` under autoSelectFamily). */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
) => void;

// dns.lookup's overloads cover every option combination; this is the one net/tls use.
const systemLookup = dnsLookup as unknown as LookupFunction;

/** A `lookup` that refuses names resolving to any private address; `base` resolves (tests fake it). */
export function privateAddressGuard(
  base: LookupFunction = systemLookup,
  /** The refusal's message; the default speaks of push services (its first user). */
  refusal: (hostname: string) => string = (hostname) =>
    `${hostname} resolves to a loopback/private address, not a push service (list it in CAIRN_PUSH_HOSTS to allow it)`,
): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const addresses = typeof address === 'string' ? [{ address, family: family ?? 4 }] : address;
      const blocked = addresses.find((entry) => isPrivateAddress(entry.address, entry.family));
      if (blocked) {
        callback(new PrivateAddressError(refusal(hostname)), address, family);
        return;
      }
      callback(null, address, family);
    });
  };
}
