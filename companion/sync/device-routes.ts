import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SyncCommitResponse } from '../../shared/protocol/sync';
import {
  SyncPairRequest,
  SyncPairResponse,
  SyncRestoreRequest,
  SyncUnpairRequest,
  SyncUnpairResponse,
  checkSyncAddress,
  syncPairingLink,
  syncTokenName,
} from '../../shared/protocol/sync-pairing';
import type { Clock } from '../../shared/ports';
import { requestClient } from '../audit/audit-hooks';
import { OWNER_TOKEN_NAME } from '../auth/scopes';
import { TokenStoreError } from '../auth/token-store';
import type { TokenStore } from '../auth/token-store';
import { ApiHttpError } from '../http/api-error';
import { folderAsOfOps, undeleteOps } from './restore';
import type { SyncService } from './sync-service';

/** The scopes a paired device's token gets: its vault, plus search and writes as today. */
export const DEVICE_TOKEN_SCOPES = ['read', 'write', 'sync'] as const;

export interface PairedDevice {
  readonly device: string;
  readonly tokenName: string;
  readonly token: string;
  readonly url: string;
  readonly link: string;
  readonly qrSvg: string;
  readonly warning?: string;
}

/**
 * Makes a token for a new device (named after it: `sync-Pixel-8`, `-2`… when taken) and the
 * pairing link carrying it. The token exists in the answer only; the companion keeps its hash.
 */
export async function pairDevice(
  tokens: TokenStore,
  request: { device: string; url: string },
  now: number,
): Promise<PairedDevice> {
  const base = syncTokenName(request.device);
  let created: { token: string; name: string } | undefined;
  for (let attempt = 1; created === undefined; attempt++) {
    const name = attempt === 1 ? base : `${base}-${attempt}`;
    try {
      const { token, stored } = tokens.create(name, [...DEVICE_TOKEN_SCOPES], now);
      created = { token, name: stored.name };
    } catch (error) {
      if (!(error instanceof TokenStoreError) || error.code !== 'CONFLICT' || attempt >= 100) {
        throw error;
      }
    }
  }
  const url = request.url.replace(/\/+$/, '');
  const link = syncPairingLink({ url, token: created.token, device: request.device });
  // Imported when a device is paired, not with every app (the command line builds one a call).
  const { toString: qrToString } = await import('qrcode');
  const qrSvg = await qrToString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  const address = checkSyncAddress(url);
  return {
    device: request.device,
    tokenName: created.name,
    token: created.token,
    url,
    link,
    qrSvg,
    ...(address.level === 'plain-http' ? { warning: address.message } : {}),
  };
}

/**
 * Pairing (admin scope: it makes tokens) and restores (sync scope) under `/api/v1/sync`
 * (docs/sync.md "Pairing", "History").
 */
export function registerSyncDeviceRoutes(
  app: FastifyInstance,
  deps: { sync: SyncService; tokens: TokenStore; clock: Clock },
): void {
  app.post(
    '/api/v1/sync/devices',
    {
      config: { scope: 'admin' as const, limited: 'sync' as const },
      schema: { body: SyncPairRequest, response: { 201: SyncPairResponse } },
    },
    async (request, reply) => {
      const body = request.body as SyncPairRequest;
      const url = body.url ?? requestOrigin(request);
      const paired = await pairDevice(deps.tokens, { device: body.device, url }, deps.clock.now());
      return reply.code(201).send({
        device: paired.device,
        token_name: paired.tokenName,
        token: paired.token,
        url: paired.url,
        link: paired.link,
        qr_svg: paired.qrSvg,
        ...(paired.warning !== undefined ? { warning: paired.warning } : {}),
      });
    },
  );

  app.post(
    '/api/v1/sync/unpair',
    {
      config: { scope: 'sync' as const, limited: 'sync' as const },
      schema: { body: SyncUnpairRequest, response: { 200: SyncUnpairResponse } },
    },
    async (request) => {
      const body = request.body as SyncUnpairRequest;
      const tokenName = request.cairnAuth?.tokenName ?? OWNER_TOKEN_NAME;
      deps.sync.store.forgetDevice(body.device);
      const revoke = tokenName !== OWNER_TOKEN_NAME;
      if (revoke) {
        try {
          deps.tokens.revoke(tokenName);
        } catch (error) {
          // Revoked meanwhile (a retry, or `token revoke` on the server): the same outcome.
          if (!(error instanceof TokenStoreError && error.code === 'NOT_FOUND')) throw error;
        }
      }
      return { device: body.device, token_name: tokenName, token_revoked: revoke };
    },
  );

  app.post(
    '/api/v1/sync/restore',
    {
      config: { scope: 'sync' as const, limited: 'sync' as const },
      schema: { body: SyncRestoreRequest, response: { 200: SyncCommitResponse } },
    },
    async (request) => {
      const body = request.body as SyncRestoreRequest;
      const hasFolder = body.folder !== undefined || body.at !== undefined;
      if ((body.file_ids === undefined) === !hasFolder) {
        throw new ApiHttpError('VALIDATION_ERROR', 'give file_ids, or folder and at', 'file_ids');
      }
      let ops;
      if (body.file_ids !== undefined) {
        ops = undeleteOps(deps.sync.store, body.file_ids);
      } else {
        if (body.at === undefined) {
          throw new ApiHttpError('VALIDATION_ERROR', 'folder needs at (a time)', 'at');
        }
        ops = folderAsOfOps(deps.sync.store, body.folder ?? '', Date.parse(body.at));
      }
      if (ops.length === 0) return { results: [], replayed: false };
      return deps.sync.committer.commit(
        { device: body.device, ops },
        {
          tokenName: request.cairnAuth?.tokenName ?? 'unknown',
          client: requestClient(request),
        },
      );
    },
  );
}

/** The address this request reached the companion at (`https://nas.tailnet.ts.net`). */
function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
