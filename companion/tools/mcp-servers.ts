import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { AbortSignalLike } from '../../shared/chat/ports';
import type {
  ExternalToolOutcome,
  ExternalTools,
  ToolDescriptor,
} from '../../shared/chat/tool-policy';
import { refusal } from '../../shared/chat/tool-policy';
import type { FunctionToolSpec } from '../../shared/chat/tool-schemas';
import { toolFailure, toolSuccess } from '../../shared/chat/tool-schemas';
import type { ToolError } from '../../shared/protocol/errors';
import type { ToolServerConfig, ToolServerStatus } from '../../shared/protocol/tools';
import { classifyHost } from '../../shared/settings/validation';
import { COMPANION_VERSION } from '../version';

/** How long connecting and listing a server's tools may take. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Retries of a server that is down: 1 s, 2 s, 4 s … at most a minute apart. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** What is kept of a stdio server's stderr, to say why it stopped. */
const STDERR_TAIL_CHARS = 2_000;

/**
 * The MCP SDK's client side, imported when the first server connects: most companions (and
 * every command-line call that builds the app) have no MCP servers configured, and the SDK
 * with its schemas is about a fifth of a second of CPU to load.
 */
async function importClientSdk() {
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }, ajv] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/validation/ajv'),
    ]);
  return {
    Client,
    StdioClientTransport,
    StreamableHTTPClientTransport,
    validators: new ajv.AjvJsonSchemaValidator(),
  };
}
type ClientSdk = Awaited<ReturnType<typeof importClientSdk>>;
let clientSdk: Promise<ClientSdk> | undefined;

export class ToolServerConfigError extends Error {
  override name = 'ToolServerConfigError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** One tool of a server, with its schema compiled (or why it does not compile). */
interface ServerTool {
  /** `server__tool`, the name the chat, the API and the model use. */
  name: string;
  remoteName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  validator?: JsonSchemaValidator<unknown>;
  schemaError?: string;
}

interface ServerState {
  config: ToolServerConfig;
  state: 'connecting' | 'up' | 'down';
  error: string | null;
  client?: Client;
  tools: ServerTool[];
  stderrTail: string;
  /** The transport's last error, to say why a connection ended. */
  transportError?: string;
  attempts: number;
  cancelRetry?: () => void;
  /** Bumped on every (re)connect and on removal: callbacks of an older connection are ignored. */
  generation: number;
}

export interface McpServerPoolOptions {
  schedule: (ms: number, fn: () => void) => () => void;
  connectTimeoutMs?: number;
  onChange?: () => void;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

/**
 * The user's MCP servers (docs/tools.md), each connected with the official SDK's `Client`: a
 * command over stdio, or a URL over Streamable HTTP with the given headers. Their tools are
 * listed with their JSON Schemas (compiled with the SDK's Ajv validator) and offered beside
 * Cairn's own. A server that fails to start or disconnects is shown as down and retried with
 * backoff; a call to a down server is refused at once, never waited on.
 */
export class McpServerPool implements ExternalTools {
  private readonly servers = new Map<string, ServerState>();
  private closed = false;

  constructor(private readonly options: McpServerPoolOptions) {}

  /** Adds a server and starts connecting; resolves when the first attempt has ended. */
  async add(config: ToolServerConfig): Promise<void> {
    checkServerConfig(config);
    await this.remove(config.name);
    const state: ServerState = {
      config,
      state: 'connecting',
      error: null,
      tools: [],
      stderrTail: '',
      attempts: 0,
      generation: 0,
    };
    this.servers.set(config.name, state);
    await this.connect(state);
  }

  async remove(name: string): Promise<boolean> {
    const state = this.servers.get(name);
    if (state === undefined) return false;
    this.servers.delete(name);
    state.generation += 1;
    state.cancelRetry?.();
    await state.client?.close().catch(() => undefined);
    this.options.onChange?.();
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.servers.keys()].map((name) => this.remove(name)));
  }

  status(): ToolServerStatus[] {
    return [...this.servers.values()].map((server) => ({
      name: server.config.name,
      ...(server.config.command === undefined
        ? {}
        : { command: server.config.command, args: server.config.args ?? [] }),
      ...(server.config.url === undefined ? {} : { url: server.config.url }),
      header_names: Object.keys(server.config.headers ?? {}),
      state: server.state,
      error: server.error,
      tools: server.tools.length,
      requires_network: serverNeedsNetwork(server.config),
    }));
  }

  /** Every tool of every server that is up, as the registry lists them. */
  descriptors(): Array<Omit<ToolDescriptor, 'enabled'> & { schemaError?: string }> {
    const listed: Array<Omit<ToolDescriptor, 'enabled'> & { schemaError?: string }> = [];
    for (const server of this.servers.values()) {
      const network = serverNeedsNetwork(server.config);
      for (const tool of server.tools) {
        listed.push({
          name: tool.name,
          source: server.config.name,
          description: tool.description,
          input_schema: tool.inputSchema,
          // docs/tools.md: reads are low; anything else a server does cannot be undone here.
          danger: tool.readOnly ? 'low' : 'high',
          requires_network: network,
          scope: tool.readOnly ? 'read' : 'write',
          ...(tool.schemaError === undefined ? {} : { schemaError: tool.schemaError }),
        });
      }
    }
    return listed;
  }

  /** Filled in by the policy: which of these tools the model may be offered now. */
  offered: (name: string) => boolean = () => true;

  specs(): FunctionToolSpec[] {
    const specs: FunctionToolSpec[] = [];
    for (const server of this.servers.values()) {
      if (server.state !== 'up') continue;
      for (const tool of server.tools) {
        if (tool.validator === undefined || !this.offered(tool.name)) continue;
        specs.push({
          type: 'function',
          function: {
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
          },
        });
      }
    }
    return specs;
  }

  validate(name: string, args: unknown): ToolError | undefined {
    const found = this.find(name);
    if (found === undefined) {
      return { code: 'VALIDATION_ERROR', message: `unknown tool "${name}"`, field: 'name' };
    }
    const { tool } = found;
    if (tool.validator === undefined) {
      return {
        code: 'VALIDATION_ERROR',
        message: `${name}: the server's input schema does not compile (${tool.schemaError ?? 'unknown error'})`,
      };
    }
    const checked = tool.validator(args ?? {});
    if (checked.valid) return undefined;
    return {
      code: 'VALIDATION_ERROR',
      message: `${name}: ${checked.errorMessage ?? 'the arguments do not fit the schema'}`,
      field: 'arguments',
    };
  }

  async call(
    name: string,
    args: unknown,
    options: { timeoutMs: number; signal?: AbortSignalLike },
  ): Promise<ExternalToolOutcome> {
    const found = this.find(name);
    if (found === undefined) {
      return failed({ code: 'VALIDATION_ERROR', message: `unknown tool "${name}"`, field: 'name' });
    }
    const { server, tool } = found;
    const client = server.client;
    if (server.state !== 'up' || client === undefined) {
      return failed(
        refusal(
          'UNAVAILABLE',
          'server_down',
          `the MCP server "${server.config.name}" is down (${server.error ?? 'connecting'}); Cairn keeps retrying`,
        ),
      );
    }
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    options.signal?.addEventListener('abort', onAbort);
    try {
      const reply = await client.callTool(
        { name: tool.remoteName, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { timeout: options.timeoutMs, signal: abort.signal },
      );
      const content = Array.isArray(reply.content) ? reply.content : [];
      const text = content
        .map((part: { type?: unknown; text?: unknown }) =>
          part.type === 'text' && typeof part.text === 'string'
            ? part.text
            : `[${String(part.type)} content]`,
        )
        .join('\n');
      if (reply.isError === true) {
        return failed({
          code: 'INTERNAL_ERROR',
          message: `${name} reported an error: ${text.slice(0, 500) || 'no details'}`,
        });
      }
      return {
        text,
        result: toolSuccess({
          source: server.config.name,
          tool: tool.remoteName,
          content,
          ...(reply.structuredContent === undefined ? {} : { structured: reply.structuredContent }),
        }),
      };
    } catch (error) {
      // The connection closing mid-call (a crashed server) lands here, as does a timeout.
      const message = describe(error);
      // The SDK's stdio reader takes at most 10 MiB per message and, past it, closes the
      // connection with an error that has no code: only its text tells it from a crash.
      if (server.transportError?.startsWith('ReadBuffer exceeded') === true) {
        return failed(
          refusal(
            'UNAVAILABLE',
            'output_too_large',
            `${name} answered more than the MCP SDK's stdio reader takes (${server.transportError}); the server is being restarted`,
          ),
        );
      }
      if (server.state !== 'up' || /closed/i.test(message)) {
        return failed(
          refusal(
            'UNAVAILABLE',
            'server_down',
            `the MCP server "${server.config.name}" went away during the call (${server.error ?? message})`,
          ),
        );
      }
      if (/timed out/i.test(message)) {
        return failed(
          refusal(
            'UNAVAILABLE',
            'timeout',
            `${name} did not answer within ${options.timeoutMs / 1000} s`,
          ),
        );
      }
      return failed({ code: 'INTERNAL_ERROR', message: `${name} failed: ${message}` });
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private find(name: string): { server: ServerState; tool: ServerTool } | undefined {
    for (const server of this.servers.values()) {
      const tool = server.tools.find((candidate) => candidate.name === name);
      if (tool !== undefined) return { server, tool };
    }
    return undefined;
  }

  private async connect(server: ServerState): Promise<void> {
    if (this.closed) return;
    server.generation += 1;
    const generation = server.generation;
    const current = () =>
      server.generation === generation && this.servers.get(server.config.name) === server;
    server.state = 'connecting';
    server.stderrTail = '';
    delete server.transportError;
    const timeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    let sdk: ClientSdk;
    try {
      sdk = await (clientSdk ??= importClientSdk());
    } catch (error) {
      clientSdk = undefined;
      this.markDown(server, generation, describe(error));
      return;
    }
    // Removed or closed while the SDK loaded: nothing to start.
    if (this.closed || !current()) return;
    const client = new sdk.Client(
      { name: 'cairn', version: COMPANION_VERSION },
      { capabilities: {} },
    );
    let transport: Transport;
    try {
      transport = this.transportFor(server, sdk);
    } catch (error) {
      this.markDown(server, generation, describe(error));
      return;
    }
    client.onclose = () => {
      if (!current()) return;
      const why = server.stderrTail.trim().split('\n').at(-1);
      this.markDown(server, generation, `disconnected${why ? `: ${why}` : ''}`);
    };
    client.onerror = (error) => {
      if (current()) server.transportError = describe(error);
    };
    try {
      await client.connect(transport, { timeout: timeoutMs });
      const listed = await client.listTools(undefined, { timeout: timeoutMs });
      if (!current()) {
        await client.close().catch(() => undefined);
        return;
      }
      server.client = client;
      server.tools = listed.tools.map((tool) =>
        this.compile(server.config.name, tool, sdk.validators),
      );
      server.state = 'up';
      server.error = null;
      server.attempts = 0;
      this.options.log?.('MCP server connected', {
        server: server.config.name,
        tools: server.tools.length,
      });
      this.options.onChange?.();
    } catch (error) {
      await client.close().catch(() => undefined);
      const why = server.stderrTail.trim().split('\n').at(-1);
      this.markDown(server, generation, `${startError(error)}${why ? ` (${why})` : ''}`);
    }
  }

  private transportFor(server: ServerState, sdk: ClientSdk): Transport {
    const { command, args, url, headers } = server.config;
    if (command !== undefined) {
      const transport = new sdk.StdioClientTransport({ command, args: args ?? [], stderr: 'pipe' });
      transport.stderr?.on('data', (chunk: Buffer) => {
        server.stderrTail = (server.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    if (url === undefined) throw new ToolServerConfigError('give a command or a url', 'command');
    return new sdk.StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: headers ?? {} },
      reconnectionOptions: {
        maxReconnectionDelay: RETRY_MAX_MS,
        initialReconnectionDelay: RETRY_FIRST_MS,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 0,
      },
    });
  }

  private compile(
    server: string,
    tool: {
      name: string;
      description?: string | undefined;
      inputSchema: Record<string, unknown>;
      annotations?: { readOnlyHint?: boolean | undefined } | undefined;
    },
    validators: AjvJsonSchemaValidator,
  ): ServerTool {
    const listed: ServerTool = {
      name: `${server}__${tool.name.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 128),
      remoteName: tool.name,
      description: (tool.description ?? tool.name).slice(0, 1000),
      inputSchema: tool.inputSchema,
      readOnly: tool.annotations?.readOnlyHint === true,
    };
    try {
      listed.validator = validators.getValidator(tool.inputSchema as never);
    } catch (error) {
      listed.schemaError = describe(error);
      this.options.log?.('MCP tool schema does not compile', {
        server,
        tool: tool.name,
        error: listed.schemaError,
      });
    }
    return listed;
  }

  private markDown(server: ServerState, generation: number, error: string): void {
    if (server.generation !== generation || this.servers.get(server.config.name) !== server) return;
    server.state = 'down';
    server.error = error;
    server.client = undefined;
    server.tools = [];
    this.options.log?.('MCP server down', { server: server.config.name, error });
    this.options.onChange?.();
    if (this.closed) return;
    const delay = Math.min(RETRY_FIRST_MS * 2 ** server.attempts, RETRY_MAX_MS);
    server.attempts += 1;
    server.cancelRetry?.();
    server.cancelRetry = this.options.schedule(delay, () => {
      if (server.generation !== generation) return;
      void this.connect(server);
    });
  }
}

/** A command or an http(s) URL, not both; a bad one is refused before anything is stored. */
export function checkServerConfig(config: ToolServerConfig): void {
  const hasCommand = config.command !== undefined;
  const hasUrl = config.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new ToolServerConfigError(
      'give either a command (stdio) or a url (Streamable HTTP), not both',
      hasCommand ? 'url' : 'command',
    );
  }
  if (hasCommand && config.command?.trim() === '') {
    throw new ToolServerConfigError('command is blank', 'command');
  }
  if (!hasCommand && config.args !== undefined && config.args.length > 0) {
    throw new ToolServerConfigError('args go with a command, not a url', 'args');
  }
  if (hasCommand && config.headers !== undefined && Object.keys(config.headers).length > 0) {
    throw new ToolServerConfigError('headers go with a url, not a command', 'headers');
  }
  if (config.url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(config.url);
    } catch {
      throw new ToolServerConfigError(`"${config.url}" is not a URL`, 'url');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ToolServerConfigError(
        `url must start with http:// or https://, not ${parsed.protocol}`,
        'url',
      );
    }
  }
}

/** docs/tools.md: a server's tools need the network unless it runs here or on the LAN. */
export function serverNeedsNetwork(config: ToolServerConfig): boolean {
  if (config.requires_network !== undefined) return config.requires_network;
  if (config.url === undefined) return false;
  try {
    return classifyHost(new URL(config.url).hostname) === 'public';
  } catch {
    return true;
  }
}

function startError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'the command was not found';
  if (code === 'EACCES') return 'the command may not be run (permission denied)';
  if (code === 'ECONNREFUSED') return 'nothing answers at that URL';
  return describe(error);
}

function failed(error: ToolError): ExternalToolOutcome {
  return { text: '', result: toolFailure(error) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
