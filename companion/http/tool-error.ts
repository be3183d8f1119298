import { TOOL_ERROR_CODES } from '../../shared/protocol/errors';
import type { ToolError, ToolErrorCode } from '../../shared/protocol/errors';
import { ApiHttpError } from './api-error';
import { storageProblem } from './storage-error';
import { VaultWriteError } from '../vault/atomic-write';

const TOOL_CODES = new Set<string>(TOOL_ERROR_CODES);

/**
 * The companion's expected errors as the tool error a caller sees, or undefined for any other:
 * the services' HTTP errors and vault-write refusals keep their message (a code the tools do not
 * know, UNPROCESSABLE: the file cannot be edited as asked, is a VALIDATION_ERROR); a full or
 * read-only disk is UNAVAILABLE saying so. The tool runner calls it (`ToolRunnerDeps.toolError`),
 * so the companion's ports throw what its services throw and this is the one translation.
 */
export function companionToolError(error: unknown): ToolError | undefined {
  if (
    (error instanceof ApiHttpError || error instanceof VaultWriteError) &&
    (error.code === 'STORAGE_FULL' || error.code === 'STORAGE_READ_ONLY')
  ) {
    return { code: 'UNAVAILABLE', message: `${error.code}: ${error.message}` };
  }
  if (error instanceof ApiHttpError || error instanceof VaultWriteError) {
    const code: ToolErrorCode = TOOL_CODES.has(error.code)
      ? (error.code as ToolErrorCode)
      : 'VALIDATION_ERROR';
    return error.field === undefined
      ? { code, message: error.message }
      : { code, message: error.message, field: error.field };
  }
  // A full or read-only disk is said as such, never as the raw ENOSPC with its path; the
  // tool codes (docs/chat.md) have no storage code, so it is UNAVAILABLE with the storage message.
  const storage = storageProblem(error);
  if (storage) return { code: 'UNAVAILABLE', message: `${storage.code}: ${storage.message}` };
  return undefined;
}

/**
 * Any error as the tool error an outside caller (MCP, the OpenAI route, the chat) sees: the
 * expected ones as `companionToolError` says, anything else INTERNAL_ERROR naming only the tool.
 * A raw error's message can hold the companion's absolute paths (ENOENT, EACCES) or a library's
 * internals, which must not leave the server, so it goes to `log` (the companion's log) instead,
 * as the HTTP error handler does for a 500.
 */
export function companionToolErrorOrInternal(
  error: unknown,
  what: string,
  log: (error: unknown, what: string) => void,
): ToolError {
  const known = companionToolError(error);
  if (known !== undefined) return known;
  log(error, what);
  return {
    code: 'INTERNAL_ERROR',
    message: `${what} failed with an internal error; the companion's log has the details`,
  };
}
