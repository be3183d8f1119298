import type { HttpRequest, HttpResponse, HttpTransport } from '../connection/http-transport';
import { errorBodyMessage } from '../../shared/protocol/json';

/** A provider that answered, but not with what was asked for: status, shape, or size. */
export class EmbeddingProviderError extends Error {
  override readonly name = 'EmbeddingProviderError';
}

/** POSTs/GETs JSON and returns the parsed body of a 200, or throws a message naming the provider. */
export async function requestJson(
  transport: HttpTransport,
  provider: string,
  request: HttpRequest,
): Promise<unknown> {
  let response;
  try {
    response = await transport.request(request);
  } catch (error) {
    throw unreachable(provider, request.url, error);
  }
  return jsonOf(provider, request, response);
}

/** The provider could not be reached at `url`. */
export function unreachable(provider: string, url: string, error: unknown): EmbeddingProviderError {
  return new EmbeddingProviderError(
    `${provider} unreachable at ${url} (${error instanceof Error ? error.message : String(error)})`,
  );
}

/** The parsed body of a 200, or an error naming the provider, the status and the request. */
export function jsonOf(
  provider: string,
  request: { readonly method: string; readonly url: string },
  response: HttpResponse,
): unknown {
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    throw new EmbeddingProviderError(
      `${provider} answered ${response.status} with a body that is not JSON (${request.method} ${request.url})`,
    );
  }
  if (response.status !== 200) {
    throw new EmbeddingProviderError(
      `${provider} answered ${response.status} to ${request.method} ${request.url}${errorSuffix(body)}`,
    );
  }
  return body;
}

/** `: <message>` of a Cairn or Ollama error body, or nothing. */
function errorSuffix(body: unknown): string {
  const message = errorBodyMessage(body);
  return message === undefined ? '' : `: ${message}`;
}

/** A JSON array of finite numbers of length `dims` (when given) as a Float32Array, else null. */
export function toVector(value: unknown, dims?: number): Float32Array | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  if (dims !== undefined && value.length !== dims) return null;
  const vector = new Float32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'number' || !Number.isFinite(item)) return null;
    vector[i] = item;
  }
  return vector;
}
