import { VaultWriteError } from '../vault/atomic-write';
import { ApiHttpError } from './api-error';

/** A vault write that did not happen becomes the API error it names. */
export async function vaultErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof VaultWriteError) {
      throw new ApiHttpError(error.code, error.message, error.field);
    }
    throw error;
  }
}
