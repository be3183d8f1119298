import type { Embedder, EmbeddingModel } from '../../shared/ports';
import type { HttpTransport } from '../connection/http-transport';
import { isRecord } from '../../shared/protocol/json';
import { EmbeddingProviderError, requestJson, toVector } from './http-json';

/*
 * The paired companion's model through its OpenAI-format `POST /v1/embeddings`
 * (companion/clients/embeddings-routes.ts). The model id and size come from `GET /v1/models`, so
 * vectors stored in the plugin record exactly what produced them.
 */

/** The companion takes at most 256 texts per request; smaller batches keep each call short. */
const BATCH = 64;

export interface CompanionEndpoint {
  /** Base URL without trailing slash (already checked by settings validation). */
  url: string;
  token: string;
}

export class CompanionEmbedder implements Embedder {
  private constructor(
    private readonly transport: HttpTransport,
    private readonly endpoint: CompanionEndpoint,
    readonly model: EmbeddingModel,
  ) {}

  /** Asks the companion which model it serves; throws when it serves none or cannot be reached. */
  static async connect(
    transport: HttpTransport,
    endpoint: CompanionEndpoint,
  ): Promise<CompanionEmbedder> {
    const body = await requestJson(transport, 'companion', {
      url: `${endpoint.url}/v1/models`,
      method: 'GET',
      headers: authorization(endpoint.token),
    });
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
    return new CompanionEmbedder(transport, endpoint, {
      id: `companion:${first.id}`,
      dims: first.dims,
    });
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const served = this.model.id.slice('companion:'.length);
    for (let start = 0; start < texts.length; start += BATCH) {
      const batch = texts.slice(start, start + BATCH);
      const body = await requestJson(this.transport, 'companion', {
        url: `${this.endpoint.url}/v1/embeddings`,
        method: 'POST',
        headers: authorization(this.endpoint.token),
        body: JSON.stringify({ model: served, input: batch, encoding_format: 'float' }),
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

function authorization(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token.trim()}` };
}
