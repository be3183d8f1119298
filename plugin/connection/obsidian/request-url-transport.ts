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
          contentType: request.body === undefined ? undefined : 'application/json',
          // 4xx/5xx are answers the client interprets, not exceptions.
          throw: false,
        }),
        timeout,
      ]);
      return { status: response.status, text: response.text };
    } finally {
      window.clearTimeout(timer);
    }
  }
}
