import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/*
 * `POST /v1/embeddings` and `GET /v1/models` in OpenAI's wire format, so the plugin and other
 * tools (LangChain, the `openai` client) can use the companion's model unchanged.
 */

export const EMBEDDING_INPUTS_MAX = 2048;
export const EMBEDDING_INPUT_MAX_CHARS = 32_000;

const EmbeddingInput = Type.String({ maxLength: EMBEDDING_INPUT_MAX_CHARS });

export const EmbeddingsRequest = Type.Object(
  {
    input: Type.Union([
      EmbeddingInput,
      Type.Array(EmbeddingInput, { minItems: 1, maxItems: EMBEDDING_INPUTS_MAX }),
    ]),
    model: Type.String({ minLength: 1 }),
    /** The `openai` client asks for base64 by default; both are answered. */
    encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')])),
    /** Accepted only when it equals the model's own dimension (no truncation is done). */
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type EmbeddingsRequest = Static<typeof EmbeddingsRequest>;

export const EmbeddingData = Type.Object({
  object: Type.Literal('embedding'),
  index: Type.Integer({ minimum: 0 }),
  /** Floats, or little-endian float32 bytes in base64 when `encoding_format: 'base64'`. */
  embedding: Type.Union([Type.Array(Type.Number()), Type.String()]),
});
export type EmbeddingData = Static<typeof EmbeddingData>;

export const EmbeddingsResponse = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(EmbeddingData),
  model: Type.String(),
  usage: Type.Object({
    prompt_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
  }),
});
export type EmbeddingsResponse = Static<typeof EmbeddingsResponse>;

export const ModelInfo = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  /** Unix seconds. */
  created: Type.Integer({ minimum: 0 }),
  owned_by: Type.String(),
});
export type ModelInfo = Static<typeof ModelInfo>;

export const ModelsResponse = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ModelInfo),
});
export type ModelsResponse = Static<typeof ModelsResponse>;
