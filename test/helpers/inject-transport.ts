import type { FastifyInstance } from 'fastify';
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../plugin/connection/http-transport';

/**
 * HttpTransport into a real companion app in the same process (`app.inject`: the app's routes,
 * hooks and schemas, no socket). The host of the URL is ignored.
 */
export class InjectTransport implements HttpTransport {
  readonly requests: HttpRequest[] = [];

  constructor(private readonly app: () => FastifyInstance) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    this.requests.push(request);
    const url = new URL(request.url);
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) {
      headers['content-type'] =
        typeof request.body === 'string' ? 'application/json' : 'application/octet-stream';
    }
    const response = await this.app().inject({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      ...(request.body === undefined
        ? {}
        : {
            payload: typeof request.body === 'string' ? request.body : Buffer.from(request.body),
          }),
    });
    const raw = response.rawPayload;
    return {
      status: response.statusCode,
      text: request.responseType === 'bytes' && response.statusCode === 200 ? '' : response.body,
      headers: Object.fromEntries(
        Object.entries(response.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : String(value ?? ''),
        ]),
      ),
      ...(request.responseType === 'bytes'
        ? {
            bytes: raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer,
          }
        : {}),
    };
  }
}
