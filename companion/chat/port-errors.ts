import { ChatPortError } from '../../shared/chat/ports';
import { TOOL_ERROR_CODES } from '../../shared/protocol/errors';
import type { ToolErrorCode } from '../../shared/protocol/errors';
import { ApiHttpError } from '../http/api-error';
import { storageProblem } from '../http/storage-error';
import { VaultWriteError } from '../vault/atomic-write';

const TOOL_CODES = new Set<string>(TOOL_ERROR_CODES);

/**
 * Runs a companion service call for a chat port: the services' own expected errors (HTTP
 * errors, vault-write refusals) become the tool error the engine reports with their message;
 * a code the tools do not know (UNPROCESSABLE: the file cannot be edited as asked) is a
 * VALIDATION_ERROR; a full or read-only disk is UNAVAILABLE saying so; anything else propagates (the engine reports it as INTERNAL_ERROR).
 */
export async function asChatPort<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiHttpError || error instanceof VaultWriteError) {
      const code: ToolErrorCode = TOOL_CODES.has(error.code)
        ? (error.code as ToolErrorCode)
        : 'VALIDATION_ERROR';
      throw new ChatPortError(code, error.message, error.field);
    }
    // A full or read-only disk is said as such, never as the raw ENOSPC with its path; the
    // tool codes (docs/chat.md) have no storage code, so it is UNAVAILABLE with the storage message.
    const storage = storageProblem(error);
    if (storage) throw new ChatPortError('UNAVAILABLE', `${storage.code}: ${storage.message}`);
    throw error;
  }
}
