import Database from 'better-sqlite3';
import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { companionToolError } from '../../../companion/http/tool-error';
import { mapError } from '../../../companion/http/error-handler';
import { storageProblem } from '../../../companion/http/storage-error';

const places = { vault: '/home/ana/Vault', dataDir: '/home/ana/.local/share/cairn' };

/** An error as Node's fs reports it. */
function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '${path}'`), { code, path, errno: -28 });
}

describe('storage errors', () => {
  it('answers 507 STORAGE_FULL naming the vault, without the absolute path', () => {
    const error = errno('ENOSPC', '/home/ana/Vault/Cairn/Notes/.a.md.cairn-0123456789ab.tmp');
    const mapped = mapError(error as unknown as FastifyError, places);
    expect(mapped).toMatchObject({ status: 507, code: 'STORAGE_FULL' });
    expect(mapped.message).toMatch(/the disk holding the vault is full; nothing was saved/);
    expect(mapped.message).not.toContain('/home/ana');
  });

  it('names the database for SQLITE_FULL and the data folder for its files', () => {
    const sqlite = new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    expect(mapError(sqlite as unknown as FastifyError, places)).toMatchObject({
      status: 507,
      code: 'STORAGE_FULL',
      message: expect.stringMatching(/companion's database/) as unknown,
    });
    expect(
      storageProblem(errno('EDQUOT', '/home/ana/.local/share/cairn/x'), places)?.message,
    ).toMatch(/companion's data folder is full/);
  });

  it('says read-only for EROFS and SQLITE_READONLY', () => {
    expect(storageProblem(errno('EROFS', '/home/ana/Vault/a.md'), places)).toMatchObject({
      code: 'STORAGE_READ_ONLY',
      message: expect.stringMatching(/^the vault is on a read-only disk/) as unknown,
    });
    const sqlite = new Database.SqliteError(
      'attempt to write a readonly database',
      'SQLITE_READONLY',
    );
    expect(mapError(sqlite as unknown as FastifyError, places).status).toBe(507);
  });

  it('leaves other errors alone (a bare 500)', () => {
    expect(storageProblem(errno('EACCES', '/x'), places)).toBeNull();
    expect(mapError(new Error('boom') as FastifyError, places)).toMatchObject({ status: 500 });
  });

  it('gives chat tools a storage message instead of the raw ENOSPC and its path', () => {
    const error = companionToolError(errno('ENOSPC', '/home/ana/Vault/Cairn/Notes/a.md'));
    expect(error).toBeDefined();
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error!.message).toMatch(/^STORAGE_FULL: the disk holding/);
    expect(error!.message).not.toContain('/home/ana');
  });
});
