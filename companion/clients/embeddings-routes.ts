import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Embedder } from '../../shared/ports';
import { EmbeddingsRequest, EmbeddingsResponse } from '../../shared/protocol/embeddings';
import type { EmbeddingData } from '../../shared/protocol/embeddings';
import { EmbeddingProviderError } from '../embeddings/provider-error';
import { ApiHttpError } from '../http/api-error';

/*
 * `POST /v1/embeddings` in OpenAI's format (companion/README.md), serving the one model the companion
 * runs (`GET /v1/models` lists it: clients/models-routes.ts). Authentication is the app's job, not this file's.
 *
 * Limits are tighter than OpenAI's: the built-in model costs ~0.1 s per text on a small machine,
 * so one request may hold at most 256 inputs (413 beyond) of at most 8,000 characters each (400
 * beyond). Callers with more text split it; the index does so anyway.
 */

export const MAX_EMBEDDING_INPUTS = 256;
export const MAX_EMBEDDING_INPUT_CHARS = 8_000;

/** 256 × 8,000 characters, escaped in JSON (up to 6 bytes a character), plus room. */
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface EmbeddingRoutesOptions {
  embedder: Embedder;
}

export function registerEmbeddingRoutes(
  app: FastifyInstance,
  { embedder }: EmbeddingRoutesOptions,
): void {
  const { id, dims } = embedder.model;

  app.post<{ Body: EmbeddingsRequest }>(
    '/v1/embeddings',
    {
      config: { limited: 'embeddings' },
      bodyLimit: BODY_LIMIT_BYTES,
      preValidation: async (request) => checkInputs(request),
      schema: { body: EmbeddingsRequest, response: { 200: EmbeddingsResponse } },
    },
    async (request): Promise<EmbeddingsResponse> => {
      const body = request.body;
      if (body.model !== id) {
        throw new ApiHttpError(
          'NOT_FOUND',
          `model "${body.model}" is not served here; this companion serves "${id}" (GET /v1/models)`,
          'model',
        );
      }
      if (body.dimensions !== undefined && body.dimensions !== dims) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          `dimensions must be ${dims} for ${id} (vectors are not truncated)`,
          'dimensions',
        );
      }
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      const vectors = await embedOrUnavailable(embedder, inputs);
      const base64 = body.encoding_format === 'base64';
      const data: EmbeddingData[] = vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? float32Base64(vector) : Array.from(vector),
      }));
      const tokens = inputs.reduce((sum, text) => sum + estimatedTokens(text), 0);
      return {
        object: 'list',
        data,
        model: id,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      };
    },
  );
}

/**
 * Runs before schema validation: counts first, so "too many" is a 413 rather than a schema
 * message, and types, because the app's Ajv coerces scalars (a number would become a string).
 */
function checkInputs(request: FastifyRequest): void {
  const input = (request.body as { input?: unknown } | null)?.input;
  if (input === undefined) return; // the schema reports it as required
  const inputs = Array.isArray(input) ? input : [input];
  if (inputs.length > MAX_EMBEDDING_INPUTS) {
    throw new ApiHttpError(
      'PAYLOAD_TOO_LARGE',
      `input holds ${inputs.length} texts; at most ${MAX_EMBEDDING_INPUTS} per request`,
      'input',
    );
  }
  const notText = inputs.findIndex((text) => typeof text !== 'string');
  if (notText >= 0) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      'input must be a string or a list of strings (token arrays are not supported)',
      Array.isArray(input) ? `input[${notText}]` : 'input',
    );
  }
  const tooLong = inputs.findIndex(
    (text) => typeof text === 'string' && text.length > MAX_EMBEDDING_INPUT_CHARS,
  );
  if (tooLong >= 0) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `input text is ${(inputs[tooLong] as string).length} characters; at most ${MAX_EMBEDDING_INPUT_CHARS}`,
      Array.isArray(input) ? `input[${tooLong}]` : 'input',
    );
  }
}

async function embedOrUnavailable(embedder: Embedder, inputs: string[]): Promise<Float32Array[]> {
  try {
    return await embedder.embed(inputs);
  } catch (error) {
    // A provider that is down or misconfigured is the server's state, not the client's fault.
    if (error instanceof EmbeddingProviderError) {
      throw new ApiHttpError('UNAVAILABLE', `embedding model unavailable: ${error.message}`);
    }
    throw error;
  }
}

/** OpenAI's `encoding_format: "base64"`: the float32 values as little-endian bytes. */
function float32Base64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/** The `Embedder` port reports no token counts; ~4 characters a token is the usual estimate. */
function estimatedTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
