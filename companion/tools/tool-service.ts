import { CLIENT_TOOLS, clientToolJsonSchema } from './client-tools';
import type {
  PendingAsk,
  ToolDescriptor,
  ToolPolicy,
  ToolRunRecord,
} from '../../shared/chat/tool-policy';
import {
  CAIRN_SOURCE,
  cairnToolDescriptor,
  DEFAULT_TOOL_OUTPUT_CAP_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  effectivePermission,
} from '../../shared/chat/tool-policy';
import { TOOL_NAMES, isToolName } from '../../shared/chat/tool-schemas';
import type { Clock } from '../../shared/ports';
import type { AuditClient } from '../../shared/protocol/audit';
import type {
  AskDecision,
  ToolAsk,
  ToolListing,
  ToolPermission,
} from '../../shared/protocol/tools';
import type { AuditLog } from '../audit/audit-log';
import { currentPathRules } from '../auth/path-rules';
import type { PathRules } from '../auth/path-rules';
import { pathOfToolCall } from '../audit/tool-audit';
import { McpServerPool } from './mcp-servers';
import { AskNotFoundError, companionAsks, scheduleTimer } from './pending-asks';
import type { PendingAsks } from './pending-asks';
import { ToolStore } from './tool-store';
import type { SqliteDatabase } from '../db/open';

export interface ToolServiceOptions {
  db: SqliteDatabase;
  clock: Clock;
  audit?: AuditLog;
  /** docs/tools.md: offline mode (on by default) refuses tools that need the internet. */
  offline?: () => boolean;
  timeoutMs?: number;
  outputCapChars?: number;
  askTimeoutMs?: number;
  connectTimeoutMs?: number;
  schedule?: (ms: number, fn: () => void) => () => void;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

const AUDIT_CLIENTS: ReadonlySet<string> = new Set([
  'api',
  'cli',
  'chat',
  'mcp',
  'openai',
  'phone',
]);

/**
 * The companion's tool registry and policy (docs/tools.md): Cairn's own tools (TOOLS, plus the
 * outside clients' `read_note`) and the user's MCP servers' tools, each with its danger,
 * network flag, switch and permission; pending asks; the run log in the audit log. The tool
 * runner (shared/chat/tool-runner.ts) asks it through `ToolPolicy` for every call.
 */
export class ToolService implements ToolPolicy {
  readonly store: ToolStore;
  readonly servers: McpServerPool;
  readonly asks: PendingAsks;
  /** The path rules each pending ask was made under, as `rulesKey` says them. */
  private readonly askRules = new Map<string, string>();
  /** "For this session": until the companion stops. Key: tool name. */
  private readonly sessionPermissions = new Map<string, ToolPermission>();
  private readonly scheduleFn: (ms: number, fn: () => void) => () => void;

  constructor(private readonly options: ToolServiceOptions) {
    this.scheduleFn = options.schedule ?? scheduleTimer;
    this.store = new ToolStore(options.db, options.clock);
    this.asks = companionAsks(options.clock, options.askTimeoutMs, this.scheduleFn);
    this.servers = new McpServerPool({
      schedule: this.scheduleFn,
      ...(options.connectTimeoutMs === undefined
        ? {}
        : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
    // The model is offered a server's tool only when it could run: on, and not denied.
    this.servers.offered = (name) => {
      const tool = this.descriptor(name);
      return tool !== undefined && tool.enabled && this.permission(tool, {}) !== 'deny';
    };
  }

  get external(): McpServerPool {
    return this.servers;
  }

  /** Connects the stored servers (without waiting for slow ones to come up). */
  async start(): Promise<void> {
    await Promise.all(
      this.store.servers().map((config) =>
        this.servers.add(config).catch((error: unknown) => {
          this.options.log?.('MCP server config refused', {
            server: config.name,
            error: String(error),
          });
        }),
      ),
    );
  }

  async close(): Promise<void> {
    this.asks.close();
    await this.servers.close();
  }

  list(): ToolListing[] {
    const cairn = [...TOOL_NAMES, 'read_note'].map((name) => this.descriptor(name));
    const external = this.servers.descriptors().map((tool) => this.descriptor(tool.name));
    return [...cairn, ...external]
      .filter((tool): tool is ToolDescriptor => tool !== undefined)
      .map((tool) => {
        const permission = this.globalPermission(tool);
        return {
          name: tool.name,
          source: tool.source,
          description: tool.description,
          danger: tool.danger,
          requires_network: tool.requires_network,
          enabled: tool.enabled,
          permission,
          always_asks: effectivePermission(tool.danger, permission) !== permission,
          input_schema: tool.input_schema,
        };
      });
  }

  descriptor(name: string): ToolDescriptor | undefined {
    const enabled = this.store.setting(name)?.enabled ?? true;
    if (isToolName(name)) return cairnToolDescriptor(name, enabled);
    if (name === 'read_note') {
      return {
        name,
        source: CAIRN_SOURCE,
        description: CLIENT_TOOLS.read_note.description,
        input_schema: clientToolJsonSchema('read_note'),
        danger: 'low',
        requires_network: false,
        enabled,
        scope: 'read',
      };
    }
    const external = this.servers.descriptors().find((tool) => tool.name === name);
    if (external === undefined) return undefined;
    const { schemaError: _schemaError, ...tool } = external;
    return { ...tool, enabled };
  }

  permission(tool: ToolDescriptor, where: { conversation?: string }): ToolPermission {
    if (where.conversation !== undefined) {
      const forConversation = this.store.conversationPermission(tool.name, where.conversation);
      if (forConversation !== undefined) return forConversation;
    }
    return this.sessionPermissions.get(tool.name) ?? this.globalPermission(tool);
  }

  /** The permission for everything: as set, else allow for Cairn's own, ask for a server's. */
  globalPermission(tool: ToolDescriptor): ToolPermission {
    return (
      this.store.setting(tool.name)?.permission ?? (tool.source === CAIRN_SOURCE ? 'allow' : 'ask')
    );
  }

  /** `PATCH /api/v1/tools/:name`. */
  update(
    name: string,
    change: {
      enabled?: boolean;
      permission?: ToolPermission;
      conversation?: string;
      session?: boolean;
    },
  ): void {
    const { permission, conversation, session, enabled } = change;
    if (permission !== undefined && conversation !== undefined) {
      this.store.setConversationPermission(name, conversation, permission);
    } else if (permission !== undefined && session === true) {
      this.sessionPermissions.set(name, permission);
    }
    const global = permission !== undefined && conversation === undefined && session !== true;
    if (enabled !== undefined || global) {
      this.store.update(name, {
        ...(enabled === undefined ? {} : { enabled }),
        ...(global ? { permission } : {}),
      });
    }
  }

  ask(request: Omit<ToolAsk, 'id' | 'expires_at'>): PendingAsk {
    const pending = this.asks.open(request);
    // Asked within a request whose token is limited to folders (auth/path-rules.ts): only a
    // token limited to the same folders (or the whole vault's) sees and answers it.
    this.askRules.set(pending.ask.id, rulesKey(currentPathRules()));
    return pending;
  }

  /** The pending asks the calling token may see (`GET /api/v1/tools/asks`). */
  visibleAsks(): ToolAsk[] {
    const asks = this.asks.list();
    const open = new Set(asks.map((ask) => ask.id));
    for (const id of this.askRules.keys()) if (!open.has(id)) this.askRules.delete(id);
    return asks.filter((ask) => this.mayAnswer(ask.id));
  }

  /** Answers ask `id` if the calling token may see it; AskNotFoundError otherwise. */
  answerAsk(id: string, decision: AskDecision): ToolAsk {
    if (!this.mayAnswer(id)) throw new AskNotFoundError(`no pending ask ${id}`);
    const ask = this.asks.answer(id, decision);
    this.askRules.delete(id);
    return ask;
  }

  private mayAnswer(id: string): boolean {
    const caller = currentPathRules();
    return caller === undefined || this.askRules.get(id) === rulesKey(caller);
  }

  allowForConversation(tool: string, conversation: string | undefined): void {
    if (conversation === undefined) this.sessionPermissions.set(tool, 'allow');
    else this.store.setConversationPermission(tool, conversation, 'allow');
  }

  offline(): boolean {
    return this.options.offline?.() ?? true;
  }

  limits(): { timeoutMs: number; outputCapChars: number } {
    return {
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      outputCapChars: this.options.outputCapChars ?? DEFAULT_TOOL_OUTPUT_CAP_CHARS,
    };
  }

  now(): number {
    return this.options.clock.now();
  }

  schedule(ms: number, fn: () => void): () => void {
    return this.scheduleFn(ms, fn);
  }

  whereToChange(): string {
    return 'in the Cairn plugin’s settings under “Tools the chat may use”, or in the phone page’s tool list';
  }

  recordRun(run: ToolRunRecord): void {
    const audit = this.options.audit;
    if (audit === undefined) return;
    audit.record({
      tokenName: run.caller.tokenName,
      client: (AUDIT_CLIENTS.has(run.caller.client) ? run.caller.client : 'chat') as AuditClient,
      action: run.tool,
      path: run.source === CAIRN_SOURCE ? pathOfToolCall(run.args, run.result) : undefined,
      outcome: run.outcome,
      errorCode: run.errorCode,
      source: run.source,
      durationMs: run.durationMs,
      reason: run.reason,
    });
  }
}

/** Path rules as a comparable key: '' for the whole vault. */
function rulesKey(rules: PathRules | undefined): string {
  return rules === undefined ? '' : [...rules].sort().join('\n');
}
