import { describe, expect, it } from 'vitest';
import { ApiHttpError } from '../../../companion/http/api-error';
import { companionToolErrorOrInternal } from '../../../companion/http/tool-error';

/** An error as Node's fs reports it, with the companion's absolute path in its message. */
function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '${path}'`), { code, path });
}

describe('companionToolErrorOrInternal', () => {
  it('keeps an expected error as it is and logs nothing', () => {
    const logged: unknown[] = [];
    const error = new ApiHttpError('NOT_FOUND', 'no reminder "r1"', 'id');
    expect(companionToolErrorOrInternal(error, 'snooze_reminder', (e) => logged.push(e))).toEqual({
      code: 'NOT_FOUND',
      message: 'no reminder "r1"',
      field: 'id',
    });
    expect(logged).toEqual([]);
  });

  it('answers any other error with its code and the tool, and logs the raw error', () => {
    const logged: Array<[unknown, string]> = [];
    const error = errno('EACCES', '/home/ana/Vault/Projects/Plan.md');
    const mapped = companionToolErrorOrInternal(error, 'read_note', (e, what) =>
      logged.push([e, what]),
    );
    expect(mapped).toEqual({
      code: 'INTERNAL_ERROR',
      message: "read_note failed with an internal error; the companion's log has the details",
    });
    expect(JSON.stringify(mapped)).not.toContain('/home/ana');
    expect(logged).toEqual([[error, 'read_note']]);
  });

  it('still says a full disk as such', () => {
    const mapped = companionToolErrorOrInternal(
      errno('ENOSPC', '/home/ana/Vault/Cairn/Notes/a.md'),
      'create_note',
      () => undefined,
    );
    expect(mapped.code).toBe('UNAVAILABLE');
    expect(mapped.message).toMatch(/^STORAGE_FULL: /);
    expect(mapped.message).not.toContain('/home/ana');
  });
});
