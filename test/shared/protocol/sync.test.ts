import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../../shared/protocol/validate';
import { SyncCommitRequest, SyncOpResult } from '../../../shared/protocol/sync';

const hash = 'a'.repeat(64);

describe('sync protocol schemas', () => {
  it('takes the three kinds of op', () => {
    const request = {
      device: 'Pixel 8',
      ops: [
        { path: 'Daily/2026-11-22.md', base: null, hash },
        { path: 'Trip.md', file_id: 'Yc8abc', base: hash, hash, mtime: 1 },
        { file_id: 'Yc8abc', base: hash, delete: true },
        { file_id: 'Yc8abc', base: hash, rename_to: 'Travel/Trip.md' },
      ],
    };
    expect(checkSchema(SyncCommitRequest, request).ok).toBe(true);
  });

  it('refuses ops that are none of them, hashes in upper case, and the empty batch', () => {
    for (const ops of [
      [{ file_id: 'x', base: hash, delete: false }],
      [{ path: 'a.md', base: null, hash: hash.toUpperCase() }],
      [{ file_id: 'x', base: hash, rename_to: 'b.md', delete: true }],
      [],
    ]) {
      expect(checkSchema(SyncCommitRequest, { device: 'Pixel 8', ops }).ok).toBe(false);
    }
    expect(checkSchema(SyncCommitRequest, { device: ' ', ops: [] }).ok).toBe(false);
  });

  it('describes every result status', () => {
    const results = [
      { status: 'accepted', seq: 1, hash, file_id: 'f1', path: 'a.md' },
      { status: 'merged', seq: 2, hash, file_id: 'f1', path: 'a.md', kept: true },
      {
        status: 'conflict',
        seq: 3,
        hash,
        file_id: 'f1',
        path: 'a.md',
        copy_path: 'a.conflict-20261122-100000.md',
        copy_file_id: 'f2',
        copy_hash: hash,
      },
      { status: 'held', reason: 'mass_delete', hold: 'h1', deletes: 60, files: 100 },
      {
        status: 'rejected',
        error: { code: 'UNKNOWN_FILE_ID', message: 'no', field: 'ops[0].file_id' },
      },
    ];
    for (const result of results) expect(checkSchema(SyncOpResult, result).ok).toBe(true);
    expect(
      checkSchema(SyncOpResult, { status: 'rejected', error: { code: 'NOPE', message: '' } }).ok,
    ).toBe(false);
  });
});
