import {
  USE_LITE_WEIGHT_BYTES,
  USE_LITE_WEIGHT_FILES,
} from '../../shared/embeddings/use-lite-files';
import type { ModelFolderAdapter } from './builtin-model-folder';

/*
 * Fills the model folder with the model's weights (data only: the wasm binaries are in main.js)
 * from a source: the paired companion's
 * `GET /api/v1/models/use-lite/files/:name` (with its token), or a base URL holding each file
 * under its own name (`<base>/<name>`, e.g. a release's assets). Each file is checked (size and SHA-256) and written under a temporary name, then renamed into
 * place; a file is never half-written under its real name, so an interrupted download leaves a
 * folder that the check reports as incomplete (naming what is missing), never one that looks
 * complete. Files already in place and intact are kept, so a second run resumes.
 */

export interface BinaryResponse {
  readonly status: number;
  readonly body: ArrayBuffer;
  /** The Content-Length header when the server sent one. */
  readonly contentLength?: number;
}

/** GETs a URL as bytes; resolves with any status, rejects only when no answer came. */
export type BinaryFetch = (url: string, headers: Record<string, string>) => Promise<BinaryResponse>;

export interface DownloadProgress {
  readonly file: string;
  /** 1-based position of `file` among the files. */
  readonly index: number;
  readonly count: number;
  /** Bytes of the files finished so far, out of `totalBytes`. */
  readonly doneBytes: number;
  readonly totalBytes: number;
}

/** Where the files come from; both URLs are checked ones without a trailing slash. */
export type ModelSource =
  | { readonly kind: 'companion'; readonly url: string; readonly token: string }
  | { readonly kind: 'url'; readonly baseUrl: string };

export interface DownloadOptions {
  readonly adapter: ModelFolderAdapter;
  readonly dir: string;
  readonly source: ModelSource;
  readonly fetch: BinaryFetch;
  readonly onProgress?: (progress: DownloadProgress) => void;
}

export class ModelDownloadError extends Error {
  override readonly name = 'ModelDownloadError';
}

const TEMP_SUFFIX = '.download';

export async function downloadBuiltinModel(options: DownloadOptions): Promise<void> {
  const { adapter, dir } = options;
  if (!(await adapter.exists(dir))) await adapter.mkdir(dir);
  let doneBytes = 0;
  for (const [position, file] of USE_LITE_WEIGHT_FILES.entries()) {
    options.onProgress?.({
      file: file.name,
      index: position + 1,
      count: USE_LITE_WEIGHT_FILES.length,
      doneBytes,
      totalBytes: USE_LITE_WEIGHT_BYTES,
    });
    const target = `${dir}/${file.name}`;
    if (!(await isIntact(adapter, target, file.bytes, file.sha256))) {
      const body = await fetchFile(options, file.name, file.bytes);
      const digest = await sha256Hex(body);
      if (digest !== file.sha256) {
        throw new ModelDownloadError(
          `${file.name} from ${sourceName(options.source)} does not match the expected model (SHA-256 ${digest}); ${
            options.source.kind === 'companion'
              ? 'is the companion a different version?'
              : 'does the URL hold the files of this plugin version?'
          }`,
        );
      }
      await writeInPlace(adapter, target, body);
    }
    doneBytes += file.bytes;
  }
}

async function fetchFile(
  options: DownloadOptions,
  name: string,
  expectedBytes: number,
): Promise<ArrayBuffer> {
  const { source } = options;
  const url =
    source.kind === 'companion'
      ? `${source.url}/api/v1/models/use-lite/files/${encodeURIComponent(name)}`
      : `${source.baseUrl}/${encodeURIComponent(name)}`;
  // The token goes to the companion only, never to a download URL.
  const headers: Record<string, string> =
    source.kind === 'companion' ? { Authorization: `Bearer ${source.token.trim()}` } : {};
  let response: BinaryResponse;
  try {
    response = await options.fetch(url, headers);
  } catch (error) {
    throw new ModelDownloadError(
      `could not download ${name} from ${url} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (response.status !== 200) {
    throw new ModelDownloadError(
      `${sourceName(source)} answered ${response.status} for ${name}${source.kind === 'companion' ? errorSuffix(response.body) : ` (${url})`}`,
    );
  }
  const received = response.body.byteLength;
  if (received !== expectedBytes || (response.contentLength ?? received) !== received) {
    throw new ModelDownloadError(
      `${name} arrived with ${received} bytes (Content-Length ${response.contentLength ?? 'absent'}), expected ${expectedBytes}`,
    );
  }
  return response.body;
}

/** "the companion", or the host of a download URL. */
function sourceName(source: ModelSource): string {
  if (source.kind === 'companion') return 'the companion';
  try {
    return new URL(source.baseUrl).host;
  } catch {
    return source.baseUrl;
  }
}

/** Writes under a temporary name, then renames: `target` is either absent or whole. */
async function writeInPlace(
  adapter: ModelFolderAdapter,
  target: string,
  body: ArrayBuffer,
): Promise<void> {
  const temp = `${target}${TEMP_SUFFIX}`;
  try {
    await adapter.writeBinary(temp, body);
    // Obsidian's adapter refuses to rename onto an existing file.
    if (await adapter.exists(target)) await adapter.remove(target);
    await adapter.rename(temp, target);
  } catch (error) {
    if (await adapter.exists(temp).catch(() => false)) await adapter.remove(temp).catch(() => {});
    throw new ModelDownloadError(
      `could not write ${target} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

async function isIntact(
  adapter: ModelFolderAdapter,
  path: string,
  bytes: number,
  sha256: string,
): Promise<boolean> {
  if (!(await adapter.exists(path))) return false;
  if ((await adapter.stat(path))?.size !== bytes) return false;
  return (await sha256Hex(await adapter.readBinary(path))) === sha256;
}

async function sha256Hex(data: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The companion's `{ error: { message } }`, when the body is one. */
function errorSuffix(body: ArrayBuffer): string {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? `: ${parsed.error.message}` : '';
  } catch {
    return '';
  }
}
