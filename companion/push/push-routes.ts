import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/ports';
import { Cursor, IsoInstant } from '../../shared/protocol/formats';
import {
  PushKeyResponse,
  PushSubscriptionCreate,
  PushSubscriptionInfo,
  PushTestResponse,
} from '../../shared/protocol/push';
import { ApiHttpError } from '../http/api-error';
import { endpointHost, endpointProblem } from './endpoint-policy';
import { p256dhProblem, unpadBase64url } from './key-check';
import type { PushService } from './push-service';
import type { StoredSubscription } from './subscription-store';
import { sendTestNotification } from './test-notification';

/*
 * Web Push routes (companion/README.md). Authentication is the app's job. A subscription's endpoint is
 * never echoed back (it is the device's address; whoever has it can push to it): the API shows
 * only its host.
 */

/** More devices than this is a script gone wrong, not a household. */
export const MAX_SUBSCRIPTIONS = 100;

const SubscriptionId = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'a subscription id',
});

/** The shared info plus what the device list needs to explain a silent phone. */
const DeviceInfo = Type.Composite([
  PushSubscriptionInfo,
  Type.Object({
    last_success: Type.Union([IsoInstant(), Type.Null()]),
    last_failure: Type.Union([
      Type.Object({ at: IsoInstant(), reason: Type.String() }),
      Type.Null(),
    ]),
  }),
]);

const DeviceListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SUBSCRIPTIONS, default: 50 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

const DeviceListResponse = Type.Object({
  subscriptions: Type.Array(DeviceInfo),
  next_cursor: Type.Union([Cursor(), Type.Null()]),
});

const PushTestRequest = Type.Union([
  Type.Object({ subscription_id: Type.Optional(SubscriptionId) }, { additionalProperties: false }),
  Type.Null(),
]);

export function registerPushRoutes(
  app: FastifyInstance,
  { push, clock }: { push: PushService; clock: Clock },
): void {
  app.get(
    '/api/v1/push/key',
    { schema: { response: { 200: PushKeyResponse } } },
    async (): Promise<PushKeyResponse> => ({ public_key: push.publicKey }),
  );

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '/api/v1/push/subscriptions',
    { schema: { querystring: DeviceListQuery, response: { 200: DeviceListResponse } } },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const all = push.store.list();
      let start = 0;
      if (request.query.cursor !== undefined) {
        const after = all.findIndex((subscription) => subscription.id === request.query.cursor);
        if (after === -1) {
          throw new ApiHttpError(
            'VALIDATION_ERROR',
            'cursor does not name a listed device (it may have been removed); list again from the start',
            'cursor',
          );
        }
        start = after + 1;
      }
      const page = all.slice(start, start + limit);
      const last = page.at(-1);
      return {
        subscriptions: page.map(deviceInfo),
        next_cursor: last && start + limit < all.length ? last.id : null,
      };
    },
  );

  app.post<{ Body: PushSubscriptionCreate }>(
    '/api/v1/push/subscriptions',
    { schema: { body: PushSubscriptionCreate, response: { 200: DeviceInfo, 201: DeviceInfo } } },
    async (request, reply) => {
      // A subscription gets every reminder, task and digest of the vault: notifications are not
      // filtered by folder, so a token limited to some folders cannot subscribe a phone.
      if ((request.cairnAuth?.paths ?? []).length > 0) {
        throw new ApiHttpError(
          'FORBIDDEN',
          `token "${request.cairnAuth?.tokenName ?? ''}" is limited to some folders, and ` +
            'notifications cover the whole vault: subscribe this phone with a token without --paths',
        );
      }
      const body = request.body;
      const endpoint = endpointProblem(body.endpoint, push.pushHosts);
      if (endpoint) {
        throw new ApiHttpError('UNPROCESSABLE', `endpoint ${endpoint}`, 'endpoint');
      }
      const key = p256dhProblem(body.keys.p256dh);
      if (key) throw new ApiHttpError('UNPROCESSABLE', `keys.p256dh ${key}`, 'keys.p256dh');
      if (body.name !== undefined && !isPrintable(body.name)) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          'name must not contain control characters or be only spaces',
          'name',
        );
      }
      if (!push.store.hasEndpoint(body.endpoint) && push.store.count() >= MAX_SUBSCRIPTIONS) {
        throw new ApiHttpError(
          'CONFLICT',
          `already ${MAX_SUBSCRIPTIONS} devices subscribed; remove one (DELETE /api/v1/push/subscriptions/:id) first`,
        );
      }
      const { subscription, created } = push.store.upsert({
        endpoint: body.endpoint,
        p256dh: unpadBase64url(body.keys.p256dh),
        auth: unpadBase64url(body.keys.auth),
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
      });
      request.log.info(
        { subscription: subscription.id, host: endpointHost(subscription.endpoint), created },
        created ? 'push subscription added' : 'push subscription renewed',
      );
      return reply.code(created ? 201 : 200).send(deviceInfo(subscription));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/push/subscriptions/:id',
    { schema: { params: Type.Object({ id: SubscriptionId }) } },
    async (request, reply) => {
      if (!push.store.delete(request.params.id)) {
        throw new ApiHttpError('NOT_FOUND', `no push subscription ${request.params.id}`, 'id');
      }
      request.log.info({ subscription: request.params.id }, 'push subscription removed');
      return reply.code(204).send();
    },
  );

  app.post<{ Body: { subscription_id?: string } | null | undefined }>(
    '/api/v1/push/test',
    {
      config: { limited: 'pushTest' },
      schema: { body: PushTestRequest, response: { 200: PushTestResponse } },
    },
    async (request): Promise<PushTestResponse> => {
      const only = request.body?.subscription_id;
      let ids: string[];
      if (only !== undefined) {
        if (!push.store.get(only)) {
          throw new ApiHttpError('NOT_FOUND', `no push subscription ${only}`, 'subscription_id');
        }
        ids = [only];
      } else {
        ids = push.store.list().map(({ id }) => id);
      }
      return sendTestNotification(push.sender, clock, ids);
    },
  );
}

function deviceInfo(subscription: StoredSubscription) {
  return {
    id: subscription.id,
    name: subscription.name,
    host: endpointHost(subscription.endpoint),
    created: iso(subscription.createdAt),
    last_success: subscription.lastSuccessAt === null ? null : iso(subscription.lastSuccessAt),
    last_failure:
      subscription.lastFailureAt === null
        ? null
        : { at: iso(subscription.lastFailureAt), reason: subscription.lastFailure ?? '' },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function isPrintable(text: string): boolean {
  return !CONTROL.test(text) && text.trim() !== '';
}
