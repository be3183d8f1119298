import type { Embedder, EmbeddingModel } from '../../shared/ports';
import type { CompanionClient, CompanionRequest } from '../connection/client';
import { isRecord } from '../../shared/protocol/json';
import { EmbeddingProviderError, jsonOf, toVector, unreachable } from './http-json';

/*
 * The paired companion's model through its OpenAI-format `POST /v1/embeddings`
 * (companion/clients/embeddings-routes.ts). The model id and size come from `GET /v1/models`, so
 * vectors stored in the plugin record exactly what produced them. Requests go through the
 * plugin's one companion client, which checks the URL and offline mode and adds the token.
 */

/** The companion takes at most 256 texts per request; smaller batches keep each call short. */
const BATCH = 64;

export class CompanionEmbedder implements Embedder {
  private constructor(
    private readonly client: CompanionClient,
    readonly model: EmbeddingModel,
  ) {}

  /** Asks the companion which model it serves; throws when it serves none or cannot be reached. */
  static async connect(client: CompanionClient): Promise<CompanionEmbedder> {
    const body = await companionJson(client, { method: 'GET', path: '/v1/models' });
    // The list also names chat models (`cairn`); the embedding model is the one with dims.
    const models: unknown[] = isRecord(body) && Array.isArray(body.data) ? body.data : [];
    const first = models.find(
      (model): model is { id: string; dims: number } =>
        isRecord(model) &&
        typeof model.id === 'string' &&
        Number.isInteger(model.dims) &&
        (model.dims as number) >= 1,
    );
    if (first === undefined) {
      throw new EmbeddingProviderError(
        'companion: GET /v1/models names no embedding model (the companion runs keyword-only)',
      );
    }
    return new CompanionEmbedder(client, {
      id: `companion:${first.id}`,
      dims: first.dims,
    });
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const served = this.model.id.slice('companion:'.length);
    for (let start = 0; start < texts.length; start += BATCH) {
      const batch = texts.slice(start, start + BATCH);
      const body = await companionJson(this.client, {
        method: 'POST',
        path: '/v1/embeddings',
        body: { model: served, input: batch, encoding_format: 'float' },
      });
      const data = isRecord(body) && Array.isArray(body.data) ? body.data : null;
      if (!data || data.length !== batch.length) {
        throw new EmbeddingProviderError(
          `companion: /v1/embeddings answered ${data?.length ?? 'no'} vectors for ${batch.length} texts`,
        );
      }
      const ordered = new Array<Float32Array>(batch.length);
      for (const item of data) {
        const index = isRecord(item) ? item.index : undefined;
        const vector = isRecord(item) ? toVector(item.embedding, this.model.dims) : null;
        if (typeof index !== 'number' || !(index >= 0 && index < batch.length) || !vector) {
          throw new EmbeddingProviderError(
            `companion: /v1/embeddings answered an item without a valid index or a ${this.model.dims}-number embedding`,
          );
        }
        ordered[index] = vector;
      }
      out.push(...ordered);
    }
    return out;
  }
}

/** The parsed body of the companion's 200, or an `EmbeddingProviderError` saying what failed. */
async function companionJson(client: CompanionClient, request: CompanionRequest): Promise<unknown> {
  const sent = await client.send(request, { requireToken: true });
  if (sent.kind === 'not-sent') throw new EmbeddingProviderError(`companion: ${sent.message}`);
  const url = `${sent.url}${request.path}`;
  if (sent.kind === 'unreachable') throw unreachable('companion', url, sent.error);
  return jsonOf('companion', { method: request.method, url }, sent.response);
}
