import type { Embedder, EmbeddingModel } from '../../shared/ports';
import type { HttpTransport } from '../connection/http-transport';
import { isRecord } from '../../shared/protocol/json';
import { EmbeddingProviderError, requestJson, toVector } from './http-json';

/*
 * Ollama's `POST /api/embed` (`{ model, input: [...] }` → `{ embeddings: [[...]] }`). The size
 * is learnt from a first call, since Ollama's model list does not say it.
 */

const BATCH = 32;

export class OllamaEmbedder implements Embedder {
  private constructor(
    private readonly transport: HttpTransport,
    private readonly baseUrl: string,
    private readonly modelName: string,
    readonly model: EmbeddingModel,
  ) {}

  static async connect(
    transport: HttpTransport,
    baseUrl: string,
    modelName: string,
  ): Promise<OllamaEmbedder> {
    const name = modelName.trim();
    if (name === '')
      throw new EmbeddingProviderError(
        'Ollama: no embedding model is set (settings → Ollama embedding model)',
      );
    const [probe] = await embedBatch(transport, baseUrl, name, ['dimension probe'], undefined);
    return new OllamaEmbedder(transport, baseUrl, name, {
      id: `ollama:${name}`,
      dims: probe!.length,
    });
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      out.push(
        ...(await embedBatch(
          this.transport,
          this.baseUrl,
          this.modelName,
          texts.slice(start, start + BATCH),
          this.model.dims,
        )),
      );
    }
    return out;
  }
}

async function embedBatch(
  transport: HttpTransport,
  baseUrl: string,
  model: string,
  input: readonly string[],
  dims: number | undefined,
): Promise<Float32Array[]> {
  const body = await requestJson(transport, 'Ollama', {
    url: `${baseUrl}/api/embed`,
    method: 'POST',
    body: JSON.stringify({ model, input }),
  });
  const embeddings = isRecord(body) && Array.isArray(body.embeddings) ? body.embeddings : null;
  if (!embeddings || embeddings.length !== input.length) {
    throw new EmbeddingProviderError(
      `Ollama: /api/embed answered ${embeddings?.length ?? 'no'} embeddings for ${input.length} texts`,
    );
  }
  const size = dims ?? (Array.isArray(embeddings[0]) ? embeddings[0].length : 0);
  return embeddings.map((raw, i) => {
    const vector = toVector(raw, size);
    if (!vector) {
      throw new EmbeddingProviderError(
        `Ollama: embedding ${i} from ${model} is not a list of ${size} numbers`,
      );
    }
    return vector;
  });
}
