import { ApiHttpError } from './api-error';

/*
 * Search pagination cursors: the offset of the next page, tied to the query it came from so a
 * cursor pasted onto another query is refused rather than silently skipping results.
 */

const PREFIX = 's1';

export function encodeCursor(offset: number, query: string): string {
  return Buffer.from(`${PREFIX}:${offset}:${fingerprint(query)}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, query: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^s1:(\d{1,6}):([0-9a-f]{8})$/.exec(text);
  if (match === null) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      'cursor is not one this server handed out',
      'cursor',
    );
  }
  if (match[2] !== fingerprint(query)) {
    throw new ApiHttpError('VALIDATION_ERROR', 'cursor belongs to a different query', 'cursor');
  }
  return Number(match[1]);
}

/** A search cursor: the kept ranking (result-snapshots.ts) and where the next page starts. */
export interface SnapshotCursor {
  snapshot: string;
  offset: number;
}

export function encodeSnapshotCursor(cursor: SnapshotCursor, query: string): string {
  const text = `s2:${cursor.snapshot}:${cursor.offset}:${fingerprint(query)}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Reads a search cursor; one of another query, or not handed out here, is a 400. */
export function decodeSnapshotCursor(cursor: string, query: string): SnapshotCursor {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^s2:([\w-]{8,32}):(\d{1,6}):([0-9a-f]{8})$/.exec(text);
  if (match === null) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      'cursor is not one this server handed out',
      'cursor',
    );
  }
  if (match[3] !== fingerprint(query)) {
    throw new ApiHttpError('VALIDATION_ERROR', 'cursor belongs to a different query', 'cursor');
  }
  return { snapshot: match[1]!, offset: Number(match[2]) };
}

/** FNV-1a of the query and filters: enough to notice a mismatched cursor, not a secret. */
export function fingerprint(query: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < query.length; i++) {
    hash ^= query.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
