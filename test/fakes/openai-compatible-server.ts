/**
 * A real HTTP server on 127.0.0.1 speaking the parts of the OpenAI chat API that LM Studio,
 * llama.cpp's llama-server, vLLM and LocalAI serve under `/v1`:
 *
 * - `GET /v1/models` → `{ object: 'list', data: [{ id, object: 'model', owned_by }] }`.
 * - `POST /v1/chat/completions` `{ model, messages, stream }` → with `stream: true`, server-sent
 *   events (`Content-Type: text/event-stream`): one `data: {chat.completion.chunk}` per piece of
 *   `reply` (the first carries `delta.role`), a last chunk with `finish_reason: 'stop'`, then
 *   `data: [DONE]`; otherwise one `chat.completion` object (with `toolCalls` set and `tools`
 *   offered, its `message.tool_calls`).
 * - With `apiKey` set, a request without `Authorization: Bearer <key>` gets OpenAI's 401
 *   envelope `{ error: { message, type, code } }`; an unknown model gets its 404.
 *
 * `holdAfterFirstChunk` keeps the stream open after its first event until `release()`, so a
 * test can see the first words arrive before the answer is complete.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OpenAiRecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export class FakeOpenAiCompatibleServer {
  readonly requests: OpenAiRecordedRequest[] = [];
  /** The answer, as the pieces it streams in. */
  reply: string[] = ['The visa fee ', 'is 80 euros ', '[1].'];
  models = ['qwen2.5-7b-instruct'];
  apiKey: string | null = null;
  holdAfterFirstChunk = false;
  /**
   * Tool calls a non-streaming request that offers `tools` is answered with (OpenAI's shape:
   * `message.tool_calls[].function.arguments` as a JSON string, `content: null`); null: text.
   */
  toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> | null = null;
  private releaseHeld: (() => void) | null = null;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeOpenAiCompatibleServer> {
    const server = createServer();
    const fake = new FakeOpenAiCompatibleServer(server);
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The base URL as users enter it: with the `/v1` prefix. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  release(): void {
    this.releaseHeld?.();
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    let body: unknown = null;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return this.error(res, 400, 'invalid JSON body', 'invalid_request_error');
      }
    }
    const path = req.url ?? '';
    this.requests.push({
      method: req.method ?? '',
      path,
      authorization: req.headers.authorization,
      body,
    });
    if (this.apiKey !== null && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return this.error(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return this.json(res, 200, {
        object: 'list',
        data: this.models.map((id) => ({ id, object: 'model', owned_by: 'organization_owner' })),
      });
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      const request = body as { model?: unknown; messages?: unknown; stream?: unknown };
      if (typeof request?.model !== 'string' || !Array.isArray(request.messages)) {
        return this.error(res, 400, 'model and messages are required', 'invalid_request_error');
      }
      if (!this.models.includes(request.model)) {
        return this.error(
          res,
          404,
          `The model \`${request.model}\` does not exist.`,
          'model_not_found',
        );
      }
      const offered = Array.isArray((request as { tools?: unknown }).tools);
      if (request.stream !== true && offered && this.toolCalls !== null) {
        return this.json(res, 200, {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1_764_000_000,
          model: request.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                tool_calls: this.toolCalls.map((call, index) => ({
                  id: `call_${index}`,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              },
              finish_reason: 'tool_calls',
            },
          ],
        });
      }
      return request.stream === true
        ? this.stream(res, request.model)
        : this.json(res, 200, {
            id: 'chatcmpl-fake',
            object: 'chat.completion',
            created: 1_764_000_000,
            model: request.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: this.reply.join('') },
                finish_reason: 'stop',
              },
            ],
          });
    }
    return this.error(res, 404, `Unknown request URL: ${req.method} ${path}`, 'not_found');
  }

  private async stream(res: ServerResponse, model: string): Promise<void> {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: 1_764_000_000,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    for (const [index, piece] of this.reply.entries()) {
      res.write(
        chunk(index === 0 ? { role: 'assistant', content: piece } : { content: piece }, null),
      );
      if (index === 0 && this.holdAfterFirstChunk) {
        await new Promise<void>((resolve) => (this.releaseHeld = resolve));
      }
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private error(res: ServerResponse, status: number, message: string, code: string): void {
    this.json(res, status, {
      error: { message, type: 'invalid_request_error', param: null, code },
    });
  }
}
