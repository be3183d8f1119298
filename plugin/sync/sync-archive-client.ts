/**
 * The sync routes behind history, undelete and pairing (docs/sync.md "History"): a note's
 * versions, deleted files, restores. Same transport, token and answer checks as the engine's
 * calls (CompanionSyncClient).
 */
import {
  SyncCommitResponse,
  SyncHistoryResponse,
  SyncTrashResponse,
} from '../../shared/protocol/sync';
import { SyncUnpairResponse } from '../../shared/protocol/sync-pairing';
import { CompanionSyncClient } from './sync-client';

export class SyncArchiveClient extends CompanionSyncClient {
  async history(path: string): Promise<SyncHistoryResponse> {
    const query = new URLSearchParams({ path });
    const response = await this.send({ method: 'GET', path: `/history?${query.toString()}` });
    return this.expect(response, [200], SyncHistoryResponse, 'GET history');
  }

  async trash(cursor?: string): Promise<SyncTrashResponse> {
    const query = new URLSearchParams({ limit: '200' });
    if (cursor !== undefined) query.set('cursor', cursor);
    const response = await this.send({ method: 'GET', path: `/trash?${query.toString()}` });
    return this.expect(response, [200], SyncTrashResponse, 'GET trash');
  }

  /** Deleted files back (by `file_id`), or a folder as it was at `at` (ISO time). */
  async restore(
    device: string,
    what: { fileIds: readonly string[] } | { folder: string; at: string },
  ): Promise<SyncCommitResponse> {
    const body =
      'fileIds' in what
        ? { device, file_ids: what.fileIds }
        : { device, folder: what.folder, at: what.at };
    const response = await this.send({
      method: 'POST',
      path: '/restore',
      body: JSON.stringify(body),
    });
    return this.expect(response, [200], SyncCommitResponse, 'POST restore');
  }

  /** This device leaves: the companion revokes the token this request carries (not the owner's). */
  async unpair(device: string): Promise<SyncUnpairResponse> {
    const response = await this.send({
      method: 'POST',
      path: '/unpair',
      body: JSON.stringify({ device }),
    });
    return this.expect(response, [200], SyncUnpairResponse, 'POST unpair');
  }
}
