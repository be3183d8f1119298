import { request as httpRequest, type IncomingMessage } from 'node:http';
import {
  OllamaTimeoutError,
  type OllamaHttp,
  type OllamaHttpRequest,
  type OllamaHttpResponse,
} from '../../../shared/chat/ollama-http';

/**
 * OllamaHttp over node:http, streaming the body as it arrives, with the timeout and abort the
 * port asks adapters to apply. Tests use it against test/fakes/ollama-server.ts.
 */
export class NodeOllamaHttp implements OllamaHttp {
  post(request: OllamaHttpRequest): Promise<OllamaHttpResponse> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const outgoing = httpRequest(
        request.url,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (response) => {
          settled = true;
          resolve({ status: response.statusCode ?? 0, body: bodyOf(response, () => clear()) });
        },
      );
      const timer = setTimeout(() => {
        const error = new OllamaTimeoutError(request.timeoutMs);
        outgoing.destroy(error);
        if (!settled) reject(error);
      }, request.timeoutMs);
      const onAbort = () => outgoing.destroy(new Error('aborted'));
      request.signal?.addEventListener('abort', onAbort);
      const clear = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
      };
      outgoing.on('error', (error) => {
        clear();
        if (!settled) reject(error);
      });
      outgoing.end(request.body);
    });
  }
}

async function* bodyOf(response: IncomingMessage, done: () => void): AsyncGenerator<string> {
  response.setEncoding('utf8');
  try {
    for await (const chunk of response) yield chunk as string;
  } finally {
    done();
  }
}
