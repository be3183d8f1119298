import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { IanaZone } from './formats';

/**
 * `GET /api/v1/phone/config`: what the phone page needs to know about the vault it serves.
 * `vault` is the vault folder's name, which Obsidian uses as the vault's name in
 * `obsidian://open?vault=…` links (the same name the push deep links carry).
 */
export const PhoneConfigResponse = Type.Object({
  vault: Type.String({ minLength: 1 }),
  /** The companion's default zone: the zone a reminder typed on the phone is written in. */
  timezone: IanaZone(),
});
export type PhoneConfigResponse = Static<typeof PhoneConfigResponse>;
