import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import {
  CLIENT_TOOLS,
  CLIENT_TOOL_NAMES,
  READ_NOTE_MAX_LINES,
  clientToolJsonSchema,
  isClientToolName,
} from './client-tools';
import type { ClientToolName } from './client-tools';
import { toolFailure, toolSuccess } from '../../shared/chat/tool-schemas';
import type { ToolCall, ToolResult } from '../../shared/chat/tool-schemas';
import type { ToolRunner } from '../../shared/chat/tool-runner';
import type { AuditClient } from '../../shared/protocol/audit';
import type { Citation } from '../../shared/protocol/citation';
import type { ToolError } from '../../shared/protocol/errors';
import { checkSchema } from '../../shared/protocol/validate';
import type { TokenIdentity } from '../auth/scopes';
import { resolveVaultPath } from '../vault/paths';
import { IDEMPOTENCY_TTL_MS } from '../idempotency/idempotency-key';
import { digestOf } from '../idempotency/write-memory';
import type { WriteMemory } from '../idempotency/write-memory';

/** What a tool call returns to a client: the envelope, text for people, and its citations. */
export interface ToolCallOutcome {
  result: ToolResult;
  text: string;
  citations: Citation[];
}

export interface ListedTool {
  name: ClientToolName;
  description: string;
  /** JSON Schema of the arguments, the same the chat engine checks. */
  inputSchema: Record<string, unknown>;
  scope: 'read' | 'write';
}

/** Files `read_note` reads; PDFs and attachments are searched, not read raw. */
const READABLE_EXTENSIONS = new Set(['.md', '.markdown', '.txt']);

/**
 * The one tool registry for outside clients (docs/clients.md): MCP and the OpenAI route list and call
 * tools here. Every call goes through the tool runner's gate (scope-checked, write tools needing
 * `write`, and recorded in the audit log); its arguments are checked once, against the client
 * tool's schema (client-tools.ts), and the typed call goes to the companion's one tool runner
 * (`ToolRunner.call`, built by companion-tool-runner.ts), the chat's too, not through the chat
 * engine: dedup, the result envelope and the one mapping of errors are the runner's (memories
 * included); only `read_note` runs here.
 */
export class ToolRegistry {
  constructor(
    private readonly deps: {
      /** The companion's tool runner, with the tool service as its policy (its gate). */
      tools: ToolRunner;
      vault: string;
      /** Where write tools' `idempotency_key`s are kept (the REST Idempotency-Key memory). */
      memory: WriteMemory;
    },
  ) {
    // Without a policy the runner's gate checks only the schema: no scope check, no run log.
    if (deps.tools.policy === undefined) {
      throw new Error('the tool registry needs a tool runner with a policy (docs/tools.md)');
    }
  }

  list(): ListedTool[] {
    return CLIENT_TOOL_NAMES.map((name) => ({
      name,
      description: CLIENT_TOOLS[name].description,
      inputSchema: clientToolJsonSchema(name),
      scope: CLIENT_TOOLS[name].scope,
    }));
  }

  /**
   * One call, through the tool runner's gate (docs/tools.md): enabled, permission (an ask waits
   * for an answer from the plugin or the phone page, or expires), schema, offline mode, scope;
   * the gate records the run (the audit log). The gate knows a client tool by its chat tool's
   * name. The arguments are checked once, in the gate's schema step, and the checked value is
   * what runs.
   */
  async call(
    name: string,
    args: unknown,
    caller: { identity: TokenIdentity; client: AuditClient },
  ): Promise<ToolCallOutcome> {
    const known = isClientToolName(name);
    const gateName = !known || name === 'read_note' ? name : (CLIENT_TOOLS[name].chatTool ?? name);
    let checked: Record<string, unknown> | undefined;
    const gate = this.deps.tools.gated<ToolCallOutcome>(
      {
        name: gateName,
        recordAs: known ? name : 'unknown_tool',
        args: args ?? {},
        caller: {
          tokenName: caller.identity.tokenName,
          client: caller.client,
          scopes: caller.identity.scopes,
        },
        reason: `The ${caller.client === 'mcp' ? 'MCP client' : 'OpenAI-compatible client'} "${caller.identity.tokenName}" called ${name}.`,
      },
      {
        validate: () => {
          if (!known) {
            return {
              code: 'VALIDATION_ERROR',
              message: `unknown tool "${name}"; expected one of ${CLIENT_TOOL_NAMES.join(', ')}`,
              field: 'name',
            };
          }
          const check = checkSchema(CLIENT_TOOLS[name].args, withoutNulls(args ?? {}));
          if (check.ok) {
            checked = check.value as Record<string, unknown>;
            return undefined;
          }
          const { field, message } = check.violation;
          return field === ''
            ? { code: 'VALIDATION_ERROR', message: `${name}: ${message}` }
            : { code: 'VALIDATION_ERROR', message: `${name}: ${message}`, field };
        },
        run: async () => {
          // The gate runs a call only after its schema step passed, which set `checked`.
          if (!isClientToolName(name) || checked === undefined) {
            throw new Error(`${name} ran without its arguments checked`);
          }
          if (name === 'read_note') {
            return await this.readNote(
              checked as { path: string; from_line?: number; to_line?: number },
            );
          }
          const { idempotency_key: key, ...rest } = checked;
          // The runner never throws: its failures come back as the envelope, mapped once.
          const call = () => this.deps.tools.call(chatCall(name, rest));
          // A dry run writes nothing, so it neither uses nor keeps an idempotency key.
          return typeof key === 'string' && rest.dry_run !== true
            ? this.once(caller.identity, key, digestOf(name, rest), call)
            : call();
        },
        refused: (error) => failed(error),
      },
    );
    for (;;) {
      const step = await gate.next();
      if (step.done === true) return step.value;
      // An ask: the call waits until the user answers in the plugin or on the phone page.
    }
  }

  /**
   * A write tool call at most once per `idempotency_key` and token (24 h, surviving restarts),
   * as REST's `Idempotency-Key` (docs/clients.md):
   * - the key seen with the same tool and arguments: the first call's result again, flagged
   *   `deduplicated`, and nothing runs;
   * - the key seen with another call: a VALIDATION_ERROR naming `idempotency_key`;
   * - a retry while the first call still runs waits for it (one process, `exclusive`).
   * The key is stored as pending before the call runs, so a full database disk refuses the call
   * with nothing written, rather than writing a call whose key cannot be kept. A call that fails
   * releases its key (it wrote nothing; a retry may run). A key left pending by a companion that
   * stopped mid-call is answered with a CONFLICT: whether that call wrote is not known.
   */
  private async once(
    identity: TokenIdentity,
    key: string,
    requestHash: string,
    run: () => Promise<ToolCallOutcome>,
  ): Promise<ToolCallOutcome> {
    const { memory } = this.deps;
    const stored = `idem:tool:${identity.tokenName}:${key}`;
    return memory.exclusive(stored, async () => {
      const earlier = memory.recall(stored);
      if (earlier !== undefined) {
        if (earlier.requestHash !== requestHash) {
          return failed({
            code: 'VALIDATION_ERROR',
            message:
              'idempotency_key was already used for a different call; use a new key for a new write',
            field: 'idempotency_key',
          });
        }
        if (earlier.status === PENDING) {
          return failed({
            code: 'CONFLICT',
            message:
              'the first call with this idempotency_key was cut off (the companion stopped while it ran); whether it wrote is unknown: look, then retry with a new key',
            field: 'idempotency_key',
          });
        }
        const outcome = JSON.parse(earlier.response) as ToolCallOutcome;
        return outcome.result.success
          ? { ...outcome, result: { ...outcome.result, deduplicated: true } }
          : outcome;
      }
      try {
        memory.remember(
          stored,
          { requestHash, status: PENDING, response: 'null' },
          IDEMPOTENCY_TTL_MS,
        );
      } catch {
        return failed({
          code: 'UNAVAILABLE',
          message:
            "STORAGE_FULL: the companion's database could not keep this call's idempotency_key (its disk may be full); nothing was written",
        });
      }
      let outcome: ToolCallOutcome;
      try {
        outcome = await run();
      } catch (error) {
        memory.forget(stored);
        throw error;
      }
      if (!outcome.result.success) {
        memory.forget(stored);
        return outcome;
      }
      try {
        memory.remember(
          stored,
          { requestHash, status: DONE, response: JSON.stringify(outcome) },
          IDEMPOTENCY_TTL_MS,
        );
      } catch {
        // Written, and the key stays pending: a retry is told the outcome is unknown rather
        // than writing again, and this caller still learns what was written.
      }
      return outcome;
    });
  }

  private async readNote(args: {
    path: string;
    from_line?: number;
    to_line?: number;
  }): Promise<ToolCallOutcome> {
    const resolved = await resolveVaultPath(this.deps.vault, args.path, 'read');
    if (!resolved.ok) {
      const code = resolved.forbidden === true ? 'FORBIDDEN' : 'VALIDATION_ERROR';
      return failed({ code, message: resolved.reason, field: 'path' });
    }
    if (!resolved.exists) {
      return failed({
        code: 'NOT_FOUND',
        message: `no note at "${resolved.relative}"`,
        field: 'path',
      });
    }
    if (!READABLE_EXTENSIONS.has(extname(resolved.relative).toLowerCase())) {
      return failed({
        code: 'VALIDATION_ERROR',
        message: `"${resolved.relative}" is not a note (read_note reads .md and .txt files; search finds PDFs)`,
        field: 'path',
      });
    }
    let content: string;
    try {
      content = await readFile(resolved.absolute, 'utf8');
    } catch (error) {
      // A folder named like a note, or a note deleted since the path was resolved: said as such,
      // never as the raw error (it holds the companion's absolute path).
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR') {
        return failed({
          code: 'VALIDATION_ERROR',
          message: `"${resolved.relative}" is a folder, not a note`,
          field: 'path',
        });
      }
      if (code === 'ENOENT') {
        return failed({
          code: 'NOT_FOUND',
          message: `no note at "${resolved.relative}"`,
          field: 'path',
        });
      }
      throw error;
    }
    const lines = content.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop();
    const from = args.from_line ?? 1;
    if (from > Math.max(lines.length, 1)) {
      return failed({
        code: 'VALIDATION_ERROR',
        message: `from_line ${from} is past the end of the note (${lines.length} lines)`,
        field: 'from_line',
      });
    }
    if (args.to_line !== undefined && args.to_line < from) {
      return failed({
        code: 'VALIDATION_ERROR',
        message: 'to_line is before from_line',
        field: 'to_line',
      });
    }
    const to = Math.min(args.to_line ?? lines.length, lines.length, from + READ_NOTE_MAX_LINES - 1);
    const width = String(to).length;
    const shown = lines.slice(from - 1, to);
    const text = shown
      .map((line, index) => `${String(from + index).padStart(width)}: ${line}`)
      .join('\n');
    const more =
      to < lines.length ? `\n(lines ${to + 1}–${lines.length} not shown; ask with from_line)` : '';
    const citation: Citation = {
      type: 'note',
      path: resolved.relative,
      title: basename(resolved.relative, extname(resolved.relative)),
      lines: [from, Math.max(from, to)],
      excerpt: shown.join('\n').slice(0, 300),
      score: 1,
    };
    return {
      result: toolSuccess({
        path: resolved.relative,
        from_line: from,
        to_line: to,
        total_lines: lines.length,
        text,
      }),
      text: text + more,
      citations: [citation],
    };
  }
}

/**
 * A client tool's checked arguments as the chat tool's call. The client schemas are the chat's
 * (client-tools.ts) but for two names docs/clients.md gives differently, so no check is repeated.
 */
function chatCall(
  name: Exclude<ClientToolName, 'read_note'>,
  args: Record<string, unknown>,
): ToolCall {
  const tool = CLIENT_TOOLS[name].chatTool;
  if (name === 'remember') {
    const dryRun = args.dry_run === undefined ? {} : { dry_run: args.dry_run };
    return { name: tool, args: { text: args.fact, ...dryRun } } as ToolCall;
  }
  if (name === 'append_to_note') {
    const { path, ...rest } = args;
    return { name: tool, args: { note: path, ...rest } } as ToolCall;
  }
  return { name: tool, args } as ToolCall;
}

/** `status` of a key whose call is running (or was cut off by a stop); DONE once answered. */
const PENDING = 0;
const DONE = 200;

function failed(error: ToolError): ToolCallOutcome {
  return { result: toolFailure(error), text: '', citations: [] };
}

/** Small models send `"tag": null` for optionals they skip (as the chat engine reads them). */
function withoutNulls(args: unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
}
