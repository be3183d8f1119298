import { request as httpRequest } from 'node:http';
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../plugin/connection/http-transport';

/**
 * HttpTransport over node:http, for tests that talk to a real local server. (The DOM
 * test environment replaces `fetch` with a browser-like one, which would add CORS.)
 */
export class NodeHttpTransport implements HttpTransport {
  readonly requests: HttpRequest[] = [];

  request(request: HttpRequest): Promise<HttpResponse> {
    this.requests.push(request);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) {
        headers['Content-Type'] =
          typeof request.body === 'string' ? 'application/json' : 'application/octet-stream';
      }
      const outgoing = httpRequest(request.url, { method: request.method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            text: body.toString('utf8'),
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, value]) => [
                name,
                Array.isArray(value) ? value.join(', ') : (value ?? ''),
              ]),
            ),
            ...(request.responseType === 'bytes'
              ? { bytes: body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) }
              : {}),
          });
        });
        response.on('error', reject);
      });
      outgoing.on('error', reject);
      if (typeof request.body === 'string') outgoing.write(request.body);
      else if (request.body !== undefined) outgoing.write(new Uint8Array(request.body));
      outgoing.end();
    });
  }
}
