import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as FsPromises from 'node:fs/promises';
import { tempDir } from '../helpers/app';

/*
 * A full or read-only vault disk, injected at the file system port atomic-write.ts uses
 * (node:fs/promises): a real full disk needs a mount, which a test run cannot count on. The
 * injected errors are the ones Linux gives (checked on a 128 KB tmpfs, full and remounted
 * read-only): ENOSPC from the temp file's write, EROFS from `access` and from creating files.
 */
const injected = vi.hoisted(() => ({
  /** Error code the next temp-file write fails with, after writing part of its bytes. */
  writeFails: undefined as string | undefined,
  /** Error code the temp file's close fails with (a deferred write error). */
  closeFails: undefined as string | undefined,
  /** Error code every `access` and every exclusive create fails with. */
  readOnly: undefined as string | undefined,
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const failure = (code: string, syscall: string, path?: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`${code}: injected, ${syscall}`), {
      code,
      syscall,
      ...(path === undefined ? {} : { path }),
    });
  return {
    ...real,
    access: async (path: string, mode?: number) => {
      if (injected.readOnly !== undefined) throw failure(injected.readOnly, 'access', path);
      return real.access(path, mode);
    },
    open: async (path: string, flags?: string, mode?: number) => {
      if (injected.readOnly !== undefined && flags === 'wx') {
        throw failure(injected.readOnly, 'open', path);
      }
      const handle = await real.open(path, flags, mode);
      if (flags !== 'wx') return handle;
      return new Proxy(handle, {
        get(target, property) {
          if (property === 'writeFile' && injected.writeFails !== undefined) {
            const code = injected.writeFails;
            return async (content: string | Uint8Array) => {
              await target.writeFile(content.slice(0, 3)); // part of it, as a full disk does
              throw failure(code, 'write');
            };
          }
          if (property === 'close' && injected.closeFails !== undefined) {
            const code = injected.closeFails;
            return async () => {
              await target.close();
              throw failure(code, 'close');
            };
          }
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
    },
  };
});

const { createVaultFile, editVaultFile, VaultWriteError } =
  await import('../../../companion/vault/atomic-write');
const { companionToolError } = await import('../../../companion/http/tool-error');

let dir: { path: string; remove: () => void };
let vault: string;
beforeEach(() => {
  dir = tempDir('atomic-storage');
  vault = join(dir.path, 'vault');
  mkdirSync(join(vault, 'Notes'), { recursive: true });
  writeFileSync(join(vault, 'Notes/a.md'), 'line one\n- [ ] task\n');
});
afterEach(() => {
  injected.writeFails = undefined;
  injected.closeFails = undefined;
  injected.readOnly = undefined;
  dir.remove();
});

const check = (text: string): string => text.replace('- [ ] task', '- [x] task');

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof VaultWriteError>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(VaultWriteError);
  return error as InstanceType<typeof VaultWriteError>;
}

const folderNow = (): string[] => readdirSync(join(vault, 'Notes')).sort();

describe('a full vault disk', () => {
  it.each(['ENOSPC', 'EDQUOT'])(
    'an edit failing with %s is STORAGE_FULL naming the note, and no temp file stays',
    async (code) => {
      injected.writeFails = code;
      const error = await rejection(editVaultFile(vault, 'Notes/a.md', check));
      expect(error.code).toBe('STORAGE_FULL');
      expect(error.message).toContain('the vault');
      expect(error.message).toContain('Notes/a.md');
      expect(error.message).not.toContain(vault);
      expect(folderNow()).toEqual(['a.md']);
      expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe('line one\n- [ ] task\n');
    },
  );

  it('a create failing at close (a deferred write error) leaves no temp file and no note', async () => {
    injected.closeFails = 'ENOSPC';
    const error = await rejection(createVaultFile(vault, 'Notes/new.md', 'hello\n'));
    expect(error.code).toBe('STORAGE_FULL');
    expect(error.message).toContain('Notes/new.md');
    expect(folderNow()).toEqual(['a.md']);
  });

  it('chat and MCP tools say it as UNAVAILABLE with the storage code', async () => {
    injected.writeFails = 'ENOSPC';
    const error = await rejection(createVaultFile(vault, 'Notes/new.md', 'hello\n'));
    expect(companionToolError(error)).toEqual({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/^STORAGE_FULL: .*Notes\/new\.md/) as unknown,
    });
  });
});

describe('a read-only vault', () => {
  it('an edit is STORAGE_READ_ONLY (507), not a CONFLICT, and nothing is written', async () => {
    injected.readOnly = 'EROFS';
    const error = await rejection(editVaultFile(vault, 'Notes/a.md', check));
    expect(error.code).toBe('STORAGE_READ_ONLY');
    expect(error.message).toContain('Notes/a.md');
    expect(error.message).toContain('read-only disk');
    expect(folderNow()).toEqual(['a.md']);
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe('line one\n- [ ] task\n');
  });

  it('a create is STORAGE_READ_ONLY naming the note', async () => {
    injected.readOnly = 'EROFS';
    const error = await rejection(createVaultFile(vault, 'Notes/new.md', 'hello\n'));
    expect(error.code).toBe('STORAGE_READ_ONLY');
    expect(error.message).toContain('Notes/new.md');
    expect(folderNow()).toEqual(['a.md']);
  });

  it('a folder the companion may not write in is STORAGE_READ_ONLY too', async () => {
    injected.readOnly = 'EACCES';
    const error = await rejection(createVaultFile(vault, 'Notes/new.md', 'hello\n'));
    expect(error.code).toBe('STORAGE_READ_ONLY');
    expect(error.message).toContain('may not write in the vault folder');
  });
});
