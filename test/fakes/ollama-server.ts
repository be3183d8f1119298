/**
 * A real HTTP server on 127.0.0.1 speaking the parts of Ollama's API that Cairn uses:
 *
 * - `POST /api/embed` `{ model, input }` → `{ model, embeddings }`; each vector is derived from a
 *   SHA-256 of the text, so the same text always gets the same unit-length vector.
 * - `GET /api/tags` → the installed models.
 * - `POST /api/chat` → one JSON answer (`stream: false`) or NDJSON chunks (the default, as in
 *   Ollama), replying with `chatReply` (text and optional tool calls). A message's `images`
 *   must be base64 strings, as Ollama requires (else its 400).
 *
 * Failure switches (`failWith`) make the next requests to a path answer 500, send broken JSON,
 * or answer only after a delay; an unknown model gets Ollama's 404.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeOllamaFailure =
  | { kind: 'status-500' }
  | { kind: 'malformed-json' }
  /** Valid JSON without the expected fields (e.g. `{}` for /api/embed). */
  | { kind: 'wrong-shape' }
  /** /api/embed only: vectors of this size instead of the configured one. */
  | { kind: 'wrong-dims'; dims: number }
  | { kind: 'slow'; delayMs: number };

export interface FakeToolCall {
  function: { name: string; arguments: Record<string, unknown> };
}

export interface FakeChatReply {
  content: string;
  toolCalls?: FakeToolCall[];
}

export interface FakeOllamaOptions {
  /** Models the server "has"; default `['nomic-embed-text', 'llama3.2']`. */
  models?: string[];
  /** Embedding size; default 8. */
  dims?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

export class FakeOllamaServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** What `/api/chat` answers. */
  chatReply: FakeChatReply = { content: 'Hello from the fake Ollama.' };
  /** When set, `/api/chat` answers what it returns for the request body (else `chatReply`). */
  chatReplyFor: ((body: unknown) => FakeChatReply | undefined) | undefined = undefined;
  models: string[];
  dims: number;
  private failures = new Map<string, FakeOllamaFailure>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    options: FakeOllamaOptions,
  ) {
    this.models = options.models ?? ['nomic-embed-text', 'llama3.2'];
    this.dims = options.dims ?? 8;
  }

  static async start(options: FakeOllamaOptions = {}): Promise<FakeOllamaServer> {
    const server = createServer();
    const fake = new FakeOllamaServer(server, options);
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Makes every later request to `path` fail this way, until `clearFailures()`. */
  failWith(path: '/api/embed' | '/api/chat' | '/api/tags', failure: FakeOllamaFailure): void {
    this.failures.set(path, failure);
  }

  clearFailures(): void {
    this.failures.clear();
  }

  /** The vector the fake gives `text` at `dims` dimensions (for assertions). */
  static vectorFor(text: string, dims: number): number[] {
    const values: number[] = [];
    for (let block = 0; values.length < dims; block++) {
      const digest = createHash('sha256').update(`${block}:${text}`).digest();
      for (let i = 0; i + 1 < digest.length && values.length < dims; i += 2) {
        values.push((digest.readUInt16BE(i) / 0xffff) * 2 - 1);
      }
    }
    const norm = Math.hypot(...values) || 1;
    return values.map((x) => x / norm);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const raw = await readBody(req);
    let body: unknown = undefined;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    this.requests.push({ method: req.method ?? 'GET', path, body });

    const failure = this.failures.get(path);
    if (failure?.kind === 'slow') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, failure.delayMs);
        this.timers.add(timer);
      });
      if (res.destroyed) return;
    }
    if (failure?.kind === 'status-500') return sendJson(res, 500, { error: 'fake internal error' });
    if (failure?.kind === 'malformed-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"embeddings": [[0.1, 0.2');
      return;
    }
    if (failure?.kind === 'wrong-shape') return sendJson(res, 200, {});

    if (req.method === 'GET' && path === '/api/tags') return this.tags(res);
    if (req.method === 'POST' && path === '/api/embed') {
      return this.embed(res, body, failure?.kind === 'wrong-dims' ? failure.dims : this.dims);
    }
    if (req.method === 'POST' && path === '/api/chat') return this.chat(res, body);
    sendJson(res, 404, { error: `fake Ollama: no route ${req.method} ${path}` });
  }

  private tags(res: ServerResponse): void {
    sendJson(res, 200, {
      models: this.models.map((name) => ({
        name: `${name}:latest`,
        model: `${name}:latest`,
        modified_at: '2026-11-01T00:00:00Z',
        size: 1_000_000,
        digest: createHash('sha256').update(name).digest('hex'),
        details: {
          format: 'gguf',
          family: 'fake',
          parameter_size: '1B',
          quantization_level: 'Q4_0',
        },
      })),
    });
  }

  private hasModel(name: unknown): name is string {
    return typeof name === 'string' && this.models.includes(name.replace(/:latest$/, ''));
  }

  private embed(res: ServerResponse, body: unknown, dims: number): void {
    const { model, input } = (body ?? {}) as { model?: unknown; input?: unknown };
    if (!this.hasModel(model)) {
      return sendJson(res, 404, {
        error: `model "${String(model)}" not found, try pulling it first`,
      });
    }
    const texts = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) {
      return sendJson(res, 400, { error: 'invalid input type' });
    }
    sendJson(res, 200, {
      model,
      embeddings: texts.map((text: string) => FakeOllamaServer.vectorFor(text, dims)),
      total_duration: 1_000_000,
      load_duration: 0,
      prompt_eval_count: texts.length,
    });
  }

  private chat(res: ServerResponse, body: unknown): void {
    const { model, stream, messages } = (body ?? {}) as {
      model?: unknown;
      stream?: unknown;
      messages?: unknown;
    };
    if (!this.hasModel(model)) {
      return sendJson(res, 404, {
        error: `model "${String(model)}" not found, try pulling it first`,
      });
    }
    const images = Array.isArray(messages)
      ? messages.flatMap((message: { images?: unknown }) => message?.images ?? [])
      : [];
    if (!images.every((image) => typeof image === 'string' && BASE64.test(image))) {
      return sendJson(res, 400, { error: 'illegal base64 data at input byte 0' });
    }
    const { content, toolCalls } = this.chatReplyFor?.(body) ?? this.chatReply;
    const final = {
      model,
      created_at: '2026-11-22T12:00:00Z',
      message: { role: 'assistant', content: stream === false ? content : '' },
      done: true,
      done_reason: 'stop',
      total_duration: 1_000_000,
      eval_count: content.split(/\s+/).length,
    };
    if (stream === false) {
      if (toolCalls) Object.assign(final.message, { tool_calls: toolCalls });
      return sendJson(res, 200, final);
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    // Ollama streams tool calls in a message of their own, then text in word-sized pieces.
    if (toolCalls) {
      res.write(
        `${JSON.stringify({ model, created_at: final.created_at, message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false })}\n`,
      );
    }
    for (const piece of content.match(/\S+\s*/g) ?? []) {
      res.write(
        `${JSON.stringify({ model, created_at: final.created_at, message: { role: 'assistant', content: piece }, done: false })}\n`,
      );
    }
    res.end(`${JSON.stringify(final)}\n`);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
