import { requestUrl } from 'obsidian';
import type { HttpRequest, HttpResponse, HttpTransport } from '../http-transport';

/**
 * HttpTransport over Obsidian's `requestUrl`, which goes through the app's own network
 * stack: no CORS preflight to satisfy, and it works the same on desktop and mobile.
 */
export class ObsidianHttpTransport implements HttpTransport {
  /** requestUrl cannot be cancelled; past this we stop waiting and report a timeout. */
  constructor(private readonly timeoutMs = 10_000) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    let timer: number | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = window.setTimeout(
        () => reject(new Error(`no answer within ${this.timeoutMs / 1000} s`)),
        this.timeoutMs,
      );
    });
    try {
      const response = await Promise.race([
        requestUrl({
          url: request.url,
          method: request.method,
          headers: request.headers,
          body: request.body,
          contentType: contentTypeOf(request.body),
          // 4xx/5xx are answers the client interprets, not exceptions.
          throw: false,
        }),
        timeout,
      ]);
      const headers = lowerCaseNames(response.headers);
      if (request.responseType !== 'bytes') {
        return { status: response.status, text: response.text, headers };
      }
      // Bytes first: `text` of a binary body is a decoding nobody reads, so only when asked.
      const bytes = response.arrayBuffer;
      const text = response.status >= 200 && response.status < 300 ? '' : response.text;
      return { status: response.status, text, bytes, headers };
    } finally {
      window.clearTimeout(timer);
    }
  }
}

/** Header names as HttpResponse has them (requestUrl keeps the server's spelling). */
function lowerCaseNames(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

function contentTypeOf(body: string | ArrayBuffer | undefined): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? 'application/json' : 'application/octet-stream';
}
