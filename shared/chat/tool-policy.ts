/**
 * The tool runner's checks (docs/tools.md). Every tool the chat, MCP or the OpenAI route runs,
 * Cairn's own or an MCP server's, goes through `runGated`, which checks in this order and
 * refuses with a coded reason (`ToolError.reason`) at the first that says no:
 *
 *   1. enabled        the user has not switched the tool off        → tool_disabled
 *   2. permission     allow / ask / deny (conversation, session, everything); `high` always asks
 *                     → permission_denied, or ask_denied / ask_expired after an ask
 *   3. schema         the arguments fit the tool's input schema      → invalid_arguments
 *   4. offline mode   a networked tool while offline mode is on     → offline_mode
 *   5. scope          the caller's token has the scope the tool needs → missing_scope
 *
 * then runs it with a timeout and an output cap (→ timeout, output_too_large) and records the
 * run (tool, source, caller, outcome, duration; never arguments or results) with the host.
 *
 * The host (the companion's tools feature, or the plugin) implements `ToolPolicy`: where the
 * tools, permissions and pending asks live. The steps a caller supplies say how to check and
 * run the call, so chat tools, MCP client tools and external servers share the one gate.
 */
import type { ToolError, ToolErrorCode, ToolRefusalReason } from '../protocol/errors';
import type { AskDecision, ToolAsk, ToolDanger, ToolPermission } from '../protocol/tools';
import type { AbortSignalLike } from './ports';
import type { FunctionToolSpec, ToolName, ToolResult } from './tool-schemas';
import { TOOLS, cairnToolDanger, cairnToolNeedsNetwork, writeScopeRefusal } from './tool-schemas';

/** The source of Cairn's own tools; an MCP server's tools carry the server's name. */
export const CAIRN_SOURCE = 'cairn';

/** Default limits of one run (docs/tools.md). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_OUTPUT_CAP_CHARS = 1_048_576;

/** One tool as the registry knows it. */
export interface ToolDescriptor {
  name: string;
  source: string;
  description: string;
  input_schema: Record<string, unknown>;
  danger: ToolDanger;
  requires_network: boolean;
  enabled: boolean;
  /** The token scope a caller needs: `write` for anything that changes something. */
  scope: 'read' | 'write';
}

/** Who is calling: a token (the companion) or the device's own user (the plugin, no token). */
export interface ToolCaller {
  tokenName: string;
  /** `chat`, `phone`, `mcp`, `openai`, `plugin`. */
  client: string;
  /** The token's scopes; undefined means the local user, who may do everything. */
  scopes?: readonly string[];
}

export type ToolRunOutcome = 'ok' | 'deduplicated' | 'refused' | 'failed';

/** What the host logs per run. `args` and `result` are for finding a vault path, never stored. */
export interface ToolRunRecord {
  tool: string;
  source: string;
  caller: ToolCaller;
  outcome: ToolRunOutcome;
  reason?: ToolRefusalReason;
  errorCode?: ToolErrorCode;
  durationMs: number;
  args: unknown;
  result: ToolResult;
}

/** A call waiting for the user, and its answer once given (`expired` when nobody answered). */
export interface PendingAsk {
  ask: ToolAsk;
  decision: Promise<AskDecision | 'expired'>;
}

/** A call's result from an MCP server, as the runner hands it on. */
export interface ExternalToolOutcome {
  result: ToolResult;
  text: string;
}

/** The tools of the user's MCP servers. */
export interface ExternalTools {
  /** For the LLM's `tools`: only enabled tools the caller could run now. */
  specs(): FunctionToolSpec[];
  /** The schema check of step 3: undefined when the arguments fit. */
  validate(name: string, args: unknown): ToolError | undefined;
  call(
    name: string,
    args: unknown,
    options: { timeoutMs: number; signal?: AbortSignalLike },
  ): Promise<ExternalToolOutcome>;
}

export interface ToolPolicy {
  /** Any tool by name (Cairn's or a server's), with its current `enabled`. */
  descriptor(name: string): ToolDescriptor | undefined;
  /** The user's permission, most specific first: conversation, session, everything, default. */
  permission(tool: ToolDescriptor, where: { conversation?: string }): ToolPermission;
  /** Opens an ask; its decision settles when answered, or `expired` when the time runs out. */
  ask(request: Omit<ToolAsk, 'id' | 'expires_at'>): PendingAsk;
  /** "Allow for this conversation": remembered for the conversation (or the session without one). */
  allowForConversation(tool: string, conversation: string | undefined): void;
  offline(): boolean;
  limits(): { timeoutMs: number; outputCapChars: number };
  /** Epoch ms, for durations. */
  now(): number;
  /** Runs `fn` after `ms`; answers what cancels it. */
  schedule(ms: number, fn: () => void): () => void;
  recordRun(run: ToolRunRecord): void;
  /** The MCP servers' tools, when the host has any. */
  external?: ExternalTools;
  /**
   * Where the user changes a tool's switch or permission, in words that finish a sentence
   * ("in Cairn's settings, under …"): added to a refusal for a tool switched off or denied.
   */
  whereToChange?(tool: ToolDescriptor): string;
}

/** One of Cairn's own tools as the registry knows it (the companion's and the plugin's). */
export function cairnToolDescriptor(name: ToolName, enabled: boolean): ToolDescriptor {
  return {
    name,
    source: CAIRN_SOURCE,
    description: TOOLS[name].description,
    input_schema: JSON.parse(JSON.stringify(TOOLS[name].args)) as Record<string, unknown>,
    danger: cairnToolDanger(name),
    requires_network: cairnToolNeedsNetwork(name),
    enabled,
    scope: TOOLS[name].scope,
  };
}

/** The effective permission: a `high` tool asks even where the user allowed it. */
export function effectivePermission(danger: ToolDanger, stored: ToolPermission): ToolPermission {
  return danger === 'high' && stored === 'allow' ? 'ask' : stored;
}

/** How a caller checks and runs a call once the gate has let it through. */
export interface GateSteps<T extends { result: ToolResult }> {
  /** Step 3, the schema: a VALIDATION_ERROR naming the field, or undefined. */
  validate(): ToolError | undefined;
  run(options: { timeoutMs: number; signal?: AbortSignalLike }): Promise<T>;
  /** The caller's outcome for a refusal (its text and citations empty). */
  refused(error: ToolError): T;
}

export interface GatedRequest {
  name: string;
  args: unknown;
  caller: ToolCaller;
  /** The conversation's vault path, when the chat has one. */
  conversation?: string;
  /** Why the model wants the call (its words, else the user's message): shown in an ask. */
  reason: string;
  /** The name the run is logged under, when the caller knows the tool by another (MCP's `ask`). */
  recordAs?: string;
  signal?: AbortSignalLike;
}

/** What the gate yields while it waits: the ask to show. */
export interface GateAskEvent {
  type: 'ask';
  ask: ToolAsk;
}

export function refusal(
  code: ToolErrorCode,
  reason: ToolRefusalReason,
  message: string,
  field?: string,
): ToolError {
  return field === undefined ? { code, reason, message } : { code, reason, message, field };
}

/**
 * The five checks, then the run, then the record. Yields an `ask` when the call waits for the
 * user; returns the caller's outcome. Never throws: a run that throws is refused with
 * `runError`'s mapping (the tool runner's one mapping), or INTERNAL_ERROR with its message.
 */
export async function* runGated<T extends { result: ToolResult }>(
  policy: ToolPolicy,
  request: GatedRequest,
  steps: GateSteps<T>,
  runError?: (error: unknown) => ToolError,
): AsyncGenerator<GateAskEvent, T> {
  const started = policy.now();
  const tool = policy.descriptor(request.name);
  const finish = (outcome: T, refusedBy?: ToolRefusalReason): T => {
    const result = outcome.result;
    const reason = refusedBy ?? (result.success ? undefined : result.error.reason);
    try {
      policy.recordRun({
        tool: request.recordAs ?? request.name,
        source: tool?.source ?? 'unknown',
        caller: request.caller,
        outcome: runOutcome(result),
        ...(reason === undefined ? {} : { reason }),
        ...(result.success ? {} : { errorCode: result.error.code }),
        durationMs: Math.max(0, policy.now() - started),
        args: request.args,
        result,
      });
    } catch {
      // The call has happened (or was refused); a failed log write must not hide its result.
    }
    return outcome;
  };
  const refuse = (error: ToolError): T => finish(steps.refused(error));

  if (tool === undefined) {
    return refuse(
      refusal('VALIDATION_ERROR', 'unknown_tool', `unknown tool "${request.name}"`, 'name'),
    );
  }
  const where = policy.whereToChange?.(tool);
  if (!tool.enabled) {
    return refuse(
      refusal(
        'FORBIDDEN',
        'tool_disabled',
        where === undefined
          ? `${tool.name} is switched off in Cairn's tool settings`
          : `${tool.name} is switched off; switch it on ${where}`,
      ),
    );
  }
  const inConversation =
    request.conversation === undefined ? {} : { conversation: request.conversation };
  const permission = effectivePermission(tool.danger, policy.permission(tool, inConversation));
  if (permission === 'deny') {
    return refuse(
      refusal(
        'FORBIDDEN',
        'permission_denied',
        where === undefined
          ? `${tool.name} is not permitted (permission: deny)`
          : `${tool.name} is not permitted (permission: deny); change that ${where}`,
      ),
    );
  }
  if (permission === 'ask') {
    const pending = policy.ask({
      tool: tool.name,
      source: tool.source,
      danger: tool.danger,
      args: request.args,
      reason: request.reason,
      ...inConversation,
    });
    yield { type: 'ask', ask: pending.ask };
    const decision = await pending.decision;
    if (decision === 'deny') {
      return refuse(refusal('FORBIDDEN', 'ask_denied', `you declined to run ${tool.name}`));
    }
    if (decision === 'expired') {
      return refuse(
        refusal(
          'FORBIDDEN',
          'ask_expired',
          `nobody answered the request to run ${tool.name} in time, so it did not run`,
        ),
      );
    }
    if (decision === 'allow_conversation' && tool.danger !== 'high') {
      policy.allowForConversation(tool.name, request.conversation);
    }
  }
  let invalid: ToolError | undefined;
  try {
    invalid = steps.validate();
  } catch (error) {
    invalid = { code: 'VALIDATION_ERROR', message: `${tool.name}: ${describeError(error)}` };
  }
  if (invalid !== undefined) return refuse({ ...invalid, reason: 'invalid_arguments' });
  if (tool.requires_network && policy.offline()) {
    return refuse(
      refusal(
        'UNAVAILABLE',
        'offline_mode',
        `${tool.name} needs the internet and offline mode is on; turn offline mode off to use it`,
      ),
    );
  }
  const scopes = request.caller.scopes;
  if (scopes !== undefined && !(scopes.includes(tool.scope) && scopes.includes('read'))) {
    const needed = scopes.includes('read') ? tool.scope : 'read';
    // The write refusal is worded as it always was (docs/clients.md), now with its reason.
    if (needed === 'write')
      return refuse({ ...writeScopeRefusal(tool.name), reason: 'missing_scope' });
    return refuse(
      refusal(
        'FORBIDDEN',
        'missing_scope',
        `${tool.name} needs the read scope, which this token does not have`,
      ),
    );
  }

  const { timeoutMs, outputCapChars } = policy.limits();
  let outcome: T;
  let cancelTimer: (() => void) | undefined;
  try {
    const timedOut = new Promise<'timeout'>((resolve) => {
      cancelTimer = policy.schedule(timeoutMs, () => resolve('timeout'));
    });
    const ran = await Promise.race([
      steps.run({ timeoutMs, ...(request.signal ? { signal: request.signal } : {}) }),
      timedOut,
    ]);
    if (ran === 'timeout') {
      return refuse(
        refusal(
          'UNAVAILABLE',
          'timeout',
          `${tool.name} did not answer within ${timeoutMs / 1000} s`,
        ),
      );
    }
    outcome = ran;
  } catch (error) {
    return refuse(
      runError?.(error) ?? {
        code: 'INTERNAL_ERROR',
        message: `${tool.name} failed: ${describeError(error)}`,
      },
    );
  } finally {
    cancelTimer?.();
  }
  const size = outputSize(outcome);
  if (size > outputCapChars) {
    return refuse(
      refusal(
        'UNAVAILABLE',
        'output_too_large',
        `${tool.name} answered ${size} characters, more than the ${outputCapChars} Cairn accepts`,
      ),
    );
  }
  return finish(outcome);
}

function runOutcome(result: ToolResult): ToolRunOutcome {
  if (result.success) return result.deduplicated ? 'deduplicated' : 'ok';
  const reason = result.error.reason;
  const failedWhileRunning =
    reason === 'timeout' || reason === 'output_too_large' || reason === 'server_down';
  return result.error.code === 'FORBIDDEN' || (reason !== undefined && !failedWhileRunning)
    ? 'refused'
    : 'failed';
}

/** The result's JSON plus its text: what would travel on to the chat and the model. */
function outputSize(outcome: { result: ToolResult; text?: unknown }): number {
  const text = typeof outcome.text === 'string' ? outcome.text.length : 0;
  try {
    return JSON.stringify(outcome.result).length + text;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
