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
      if (request.body !== undefined) headers['Content-Type'] = 'application/json';
      const outgoing = httpRequest(request.url, { method: request.method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      });
      outgoing.on('error', reject);
      if (request.body !== undefined) outgoing.write(request.body);
      outgoing.end();
    });
  }
}
