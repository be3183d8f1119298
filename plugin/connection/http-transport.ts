/**
 * The one seam through which the plugin speaks HTTP. The Obsidian adapter implements it
 * with `requestUrl` (no CORS, works on mobile); tests use a real local server or a fake.
 */

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** JSON text; the transport sets `Content-Type: application/json` when present. */
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** The body as text; callers parse JSON themselves so a non-JSON body is not an exception. */
  text: string;
}

export interface HttpTransport {
  /**
   * Resolves with any HTTP status, 4xx/5xx included. Rejects only when no response
   * arrived (connection refused, DNS failure, TLS error, timeout).
   */
  request(request: HttpRequest): Promise<HttpResponse>;
}
