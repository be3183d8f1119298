/**
 * The one seam through which the plugin speaks HTTP. The Obsidian adapter implements it
 * with `requestUrl` (no CORS, works on mobile); tests use a real local server or a fake.
 */

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /**
   * JSON text (the transport sets `Content-Type: application/json`), or raw bytes (sent as
   * `application/octet-stream`: sync blobs).
   */
  body?: string | ArrayBuffer;
  /** `bytes`: the answer's body is wanted as bytes too (`HttpResponse.bytes`), e.g. a blob. */
  responseType?: 'text' | 'bytes';
}

export interface HttpResponse {
  status: number;
  /** The body as text; callers parse JSON themselves so a non-JSON body is not an exception. */
  text: string;
  /** The body's bytes, when the request asked for `responseType: 'bytes'`. */
  bytes?: ArrayBuffer;
  /**
   * Response headers with lower-case names, where the transport has them (`Retry-After` of a
   * 429 is read from here).
   */
  headers?: Readonly<Record<string, string>>;
}

export interface HttpTransport {
  /**
   * Resolves with any HTTP status, 4xx/5xx included. Rejects only when no response
   * arrived (connection refused, DNS failure, TLS error, timeout).
   */
  request(request: HttpRequest): Promise<HttpResponse>;
}
