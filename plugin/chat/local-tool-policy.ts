/**
 * The tool policy of the plugin's own chat (docs/tools.md): the chat in Obsidian's pane runs
 * Cairn's tools on this device (with Ollama, an OpenAI-compatible server, or the rules), and
 * every call goes through the one gate (shared/chat/tool-policy.ts) with this host behind it:
 *
 * - the switch and the permission for everything come from the plugin's settings
 *   (`chatTools`, edited under "Tools this device's chat may use"); a tool the user never
 *   changed has its default (`localDefaultPermission`);
 * - "Allow for this conversation" and session rules live in memory until Obsidian closes (in a
 *   new chat's first turn, the rule waits for the chat's file and then belongs to it);
 * - asks wait in the shared `PendingAsks` and are answered from the pane's ask card;
 * - offline mode is the plugin's own setting;
 * - runs are kept in a short in-memory log (tool, source, outcome, reason, duration; never the
 *   arguments or results): the plugin has no audit log of its own, the companion's is its own.
 *
 * The companion's chat (phone page, `POST /api/v1/chat`, MCP) has its own list on the companion.
 */
import { DEFAULT_ASK_TIMEOUT_MS, PendingAsks, askIdFrom } from '../../shared/chat/pending-asks';
import {
  DEFAULT_TOOL_OUTPUT_CAP_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  cairnToolDescriptor,
  effectivePermission,
} from '../../shared/chat/tool-policy';
import type {
  PendingAsk,
  ToolDescriptor,
  ToolPolicy,
  ToolRunOutcome,
  ToolRunRecord,
} from '../../shared/chat/tool-policy';
import { TOOL_NAMES, isToolName } from '../../shared/chat/tool-schemas';
import type { ToolName } from '../../shared/chat/tool-schemas';
import type { Clock } from '../../shared/ports';
import type { ToolRefusalReason } from '../../shared/protocol/errors';
import type { AskDecision, ToolAsk, ToolDanger, ToolPermission } from '../../shared/protocol/tools';
import type { CairnSettings } from '../../shared/settings/cairn-settings';
import type { ChatBackend } from './chat-session';
import type { ChatTurnOptions } from '../../shared/chat/chat-engine';
import type { ChatEvent } from '../../shared/protocol/chat';

/** Where the user changes it, finishing "change that …" (the settings tab's row name). */
export const LOCAL_TOOLS_SETTING = 'Tools this device’s chat may use';

/**
 * The default for a tool the user never set. Reads run. Writes that Undo can revert run too:
 * each one shows its card with Undo in the pane, and a message like "note: buy rope" already is
 * the user's yes; asking again would make every note and reminder two steps (and the companion's
 * chat does the same). Anything Cairn cannot undo asks, and keeps asking even when allowed.
 */
export function localDefaultPermission(danger: ToolDanger): ToolPermission {
  return danger === 'high' ? 'ask' : 'allow';
}

/** One run as the plugin keeps it: never arguments, results or note text. */
export interface LocalToolRun {
  /** Epoch ms the run ended. */
  at: number;
  tool: string;
  source: string;
  outcome: ToolRunOutcome;
  reason?: ToolRefusalReason;
  durationMs: number;
}

/** A tool as the settings tab lists it for this device's chat. */
export interface LocalToolListing {
  name: ToolName;
  description: string;
  danger: ToolDanger;
  enabled: boolean;
  /** As stored, or the default. */
  permission: ToolPermission;
  /** True when the user has not set it (the default applies). */
  isDefault: boolean;
  /** A `high` tool asks even when allowed. */
  alwaysAsks: boolean;
}

export interface LocalToolPolicyOptions {
  settings: () => CairnSettings;
  clock: Clock;
  /** Runs `fn` after `ms`; answers what cancels it (window.setTimeout in Obsidian). */
  schedule: (ms: number, fn: () => void) => () => void;
  randomBytes: (count: number) => Uint8Array;
  askTimeoutMs?: number;
  timeoutMs?: number;
  outputCapChars?: number;
}

/** How many runs the in-memory log keeps. */
export const LOCAL_RUN_LOG_SIZE = 200;

export class LocalToolPolicy implements ToolPolicy {
  readonly asks: PendingAsks;
  /** Key: tool name. Until Obsidian closes. */
  private readonly sessionPermissions = new Map<string, ToolPermission>();
  /** Key: the conversation's vault path, then the tool name. Until Obsidian closes. */
  private readonly conversationPermissions = new Map<string, Map<string, ToolPermission>>();
  private readonly runLog: LocalToolRun[] = [];
  /**
   * "Allow for this conversation" answered in a new chat's first turn, before it has a file:
   * kept for the chat that turn saves (`conversationSaved`), not for the whole session.
   */
  private readonly newChatAllows = new Set<string>();

  constructor(private readonly options: LocalToolPolicyOptions) {
    this.asks = new PendingAsks(
      options.clock,
      options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
      options.schedule,
      () => askIdFrom(options.randomBytes(12)),
    );
  }

  descriptor(name: string): ToolDescriptor | undefined {
    if (!isToolName(name)) return undefined;
    return cairnToolDescriptor(name, !this.options.settings().chatTools.disabled.includes(name));
  }

  permission(tool: ToolDescriptor, where: { conversation?: string }): ToolPermission {
    if (where.conversation !== undefined) {
      const forConversation = this.conversationPermissions.get(where.conversation)?.get(tool.name);
      if (forConversation !== undefined) return forConversation;
    } else if (this.newChatAllows.has(tool.name)) {
      return 'allow';
    }
    return this.sessionPermissions.get(tool.name) ?? this.globalPermission(tool);
  }

  /** The permission for everything: as the settings say, else the default for its danger. */
  globalPermission(tool: Pick<ToolDescriptor, 'name' | 'danger'>): ToolPermission {
    return storedPermission(this.options.settings(), tool);
  }

  /** A rule for this session only (until Obsidian closes). */
  setSessionPermission(tool: string, permission: ToolPermission): void {
    this.sessionPermissions.set(tool, permission);
  }

  ask(request: Omit<ToolAsk, 'id' | 'expires_at'>): PendingAsk {
    return this.asks.open(request);
  }

  /** The pane's answer to an ask; AskNotFoundError once it was answered or expired. */
  answer(id: string, decision: AskDecision): void {
    this.asks.answer(id, decision);
  }

  allowForConversation(tool: string, conversation: string | undefined): void {
    if (conversation === undefined) {
      this.newChatAllows.add(tool);
      return;
    }
    const rules =
      this.conversationPermissions.get(conversation) ?? new Map<string, ToolPermission>();
    rules.set(tool, 'allow');
    this.conversationPermissions.set(conversation, rules);
  }

  /** A turn starts; one in a new chat forgets what an earlier unsaved chat allowed. */
  beginTurn(conversation: string | undefined): void {
    if (conversation === undefined) this.newChatAllows.clear();
  }

  /** A new chat got its file: what its first turn allowed now belongs to it. */
  conversationSaved(conversation: string): void {
    for (const tool of this.newChatAllows) this.allowForConversation(tool, conversation);
    this.newChatAllows.clear();
  }

  offline(): boolean {
    return this.options.settings().privacy.offlineMode;
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
    return this.options.schedule(ms, fn);
  }

  whereToChange(): string {
    return `in Cairn’s settings, under “${LOCAL_TOOLS_SETTING}”`;
  }

  recordRun(run: ToolRunRecord): void {
    this.runLog.push({
      at: this.options.clock.now(),
      tool: run.tool,
      source: run.source,
      outcome: run.outcome,
      ...(run.reason === undefined ? {} : { reason: run.reason }),
      durationMs: run.durationMs,
    });
    if (this.runLog.length > LOCAL_RUN_LOG_SIZE) this.runLog.shift();
  }

  /** The latest runs, oldest first. */
  runs(): readonly LocalToolRun[] {
    return [...this.runLog];
  }

  /** Every open ask expires (the plugin unloads): the turns waiting on them end refused. */
  close(): void {
    this.asks.close();
  }
}

function storedPermission(
  settings: CairnSettings,
  tool: Pick<ToolDescriptor, 'name' | 'danger'>,
): ToolPermission {
  return settings.chatTools.permissions[tool.name] ?? localDefaultPermission(tool.danger);
}

/** Cairn's tools as the settings tab lists them for this device's chat. */
export function localToolListing(settings: CairnSettings): LocalToolListing[] {
  const stored = settings.chatTools;
  return TOOL_NAMES.map((name) => {
    const tool = cairnToolDescriptor(name, !stored.disabled.includes(name));
    const permission = storedPermission(settings, tool);
    return {
      name,
      description: tool.description,
      danger: tool.danger,
      enabled: tool.enabled,
      permission,
      isDefault: stored.permissions[name] === undefined,
      alwaysAsks: effectivePermission(tool.danger, permission) !== permission,
    };
  });
}

/** Changes one tool's entry in the settings (`chatTools`), as the settings tab saves it. */
export function setLocalTool(
  settings: CairnSettings,
  name: ToolName,
  change: { enabled?: boolean; permission?: ToolPermission },
): void {
  const tools = settings.chatTools;
  if (change.permission !== undefined) {
    tools.permissions = { ...tools.permissions, [name]: change.permission };
  }
  if (change.enabled !== undefined) {
    const others = tools.disabled.filter((tool) => tool !== name);
    tools.disabled = change.enabled ? others : [...others, name];
  }
}

/**
 * The pane's backend over the plugin's engine: its asks are answered by this policy, and a new
 * chat's "Allow for this conversation" is handed to the chat once its turn has saved it.
 */
export function localChatBackend(
  engine: Pick<ChatBackend, 'send' | 'undo'>,
  policy: LocalToolPolicy,
): ChatBackend {
  return {
    send: (message, options) => withSavedChat(engine.send(message, options), options, policy),
    undo: (action) => engine.undo(action),
    answerAsk: async (id, decision) => {
      await Promise.resolve();
      policy.answer(id, decision);
    },
  };
}

async function* withSavedChat(
  events: AsyncIterable<ChatEvent>,
  options: ChatTurnOptions | undefined,
  policy: LocalToolPolicy,
): AsyncGenerator<ChatEvent> {
  const conversation = options?.conversation;
  policy.beginTurn(conversation);
  for await (const event of events) {
    if (event.type === 'done' && conversation === undefined && event.conversation !== undefined) {
      policy.conversationSaved(event.conversation);
    }
    yield event;
  }
}
