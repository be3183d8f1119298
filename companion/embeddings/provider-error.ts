/**
 * Why an embedding provider could not answer. Routes map `code` to an HTTP status and the error
 * envelope; messages are written for the person running the companion and say what to do.
 */
export type EmbeddingProviderErrorCode =
  /** The provider's server cannot be reached or did not answer in time. */
  | 'UNAVAILABLE'
  /** The configured model does not exist on the provider. */
  | 'NOT_FOUND'
  /** The provider answered, but not with what its API promises. */
  | 'BAD_RESPONSE';

export class EmbeddingProviderError extends Error {
  override readonly name = 'EmbeddingProviderError';

  constructor(
    readonly code: EmbeddingProviderErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
