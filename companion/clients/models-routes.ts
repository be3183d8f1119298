import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock, Embedder } from '../../shared/ports';
import { ModelInfo } from '../../shared/protocol/embeddings';
import { CAIRN_CHAT_MODEL } from '../../shared/protocol/openai-chat';

/** OpenAI's model entry; embedding models add `dims`, which Cairn clients use to check vectors. */
const ModelsResponse = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Composite([ModelInfo, Type.Object({ dims: Type.Optional(Type.Integer({ minimum: 1 })) })]),
  ),
});

/**
 * `GET /v1/models` (docs/clients.md): the chat model `cairn` (for `/v1/chat/completions`) beside the
 * embedding model when one runs (for `/v1/embeddings`). `created` is when this server started.
 */
export function registerModelsRoute(
  app: FastifyInstance,
  deps: { clock: Clock; embedder?: Embedder },
): void {
  const created = Math.floor(deps.clock.now() / 1000);
  app.get('/v1/models', { schema: { response: { 200: ModelsResponse } } }, async () => ({
    object: 'list' as const,
    data: [
      { id: CAIRN_CHAT_MODEL, object: 'model' as const, created, owned_by: 'cairn' },
      ...(deps.embedder
        ? [
            {
              id: deps.embedder.model.id,
              object: 'model' as const,
              created,
              owned_by: 'cairn',
              dims: deps.embedder.model.dims,
            },
          ]
        : []),
    ],
  }));
}
