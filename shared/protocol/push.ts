import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { IsoInstant } from './formats';

/*
 * Key sizes are fixed by RFC 8291: p256dh is an uncompressed P-256 point (65 bytes, first byte
 * 0x04, so its base64url starts with "B"), auth is 16 bytes. Browsers send them unpadded;
 * some libraries pad, so one or two trailing "=" are accepted.
 */
const P256DH = '^B[A-Za-z0-9_-]{86}=?$';
const AUTH = '^[A-Za-z0-9_-]{21}[AQgw](?:==)?$';

/** `POST /api/v1/push/subscriptions`: the browser's `PushSubscription.toJSON()` plus a name. */
export const PushSubscriptionCreate = Type.Object(
  {
    endpoint: Type.String({
      pattern: '^https://[^\\s/?#]+[^\\s]*$',
      maxLength: 2048,
      description: 'an https: URL',
    }),
    /** Browsers include it (usually null); accepted and ignored in favour of 404/410 handling. */
    expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    keys: Type.Object(
      {
        p256dh: Type.String({
          pattern: P256DH,
          description: 'a base64url P-256 public key (65 bytes)',
        }),
        auth: Type.String({ pattern: AUTH, description: 'a base64url 16-byte secret' }),
      },
      { additionalProperties: false },
    ),
    /** Shown in the device list, e.g. "Pixel 8". */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type PushSubscriptionCreate = Static<typeof PushSubscriptionCreate>;

/** A stored subscription as the API shows it: never the endpoint's secret path, only its host. */
export const PushSubscriptionInfo = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  host: Type.String(),
  created: IsoInstant(),
});
export type PushSubscriptionInfo = Static<typeof PushSubscriptionInfo>;

/** `GET /api/v1/push/key`: the VAPID public key as base64url, for `applicationServerKey`. */
export const PushKeyResponse = Type.Object({
  public_key: Type.String({ pattern: P256DH }),
});
export type PushKeyResponse = Static<typeof PushKeyResponse>;

export const PushTestResponse = Type.Object({
  sent: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
});
export type PushTestResponse = Static<typeof PushTestResponse>;

export const PUSH_ACTIONS = ['done', 'snooze_15m', 'snooze_1h', 'open'] as const;
export type PushAction = (typeof PUSH_ACTIONS)[number];

/** The JSON a push message carries to the phone's service worker (docs/delivery.md). */
export const PushPayload = Type.Object({
  title: Type.String(),
  body: Type.String(),
  reminder_id: Type.String(),
  /** The occurrence instant this message is for; with `reminder_id` it keys the delivery log. */
  occurrence: IsoInstant(),
  /** `obsidian://open?vault=…&file=…#^r-xxxx`. */
  deep_link: Type.String(),
  actions: Type.Array(Type.Union(PUSH_ACTIONS.map((action) => Type.Literal(action)))),
});
export type PushPayload = Static<typeof PushPayload>;
