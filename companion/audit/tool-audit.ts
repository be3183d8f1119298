import type { ToolResult } from '../../shared/chat/tool-schemas';
import type { AuditClient, AuditOutcome } from '../../shared/protocol/audit';
import type { TokenIdentity } from '../auth/scopes';
import type { AuditLog } from './audit-log';
import { isRecord } from '../../shared/protocol/json';

/**
 * Records one tool call (chat, MCP, OpenAI route) in the audit log: the tool's name, the vault
 * path it touched (from its result, else its arguments), and how it ended. Arguments and results
 * are read for a path only; their text is never stored.
 */
export function auditToolCall(
  audit: AuditLog,
  call: {
    identity: TokenIdentity;
    client: AuditClient;
    tool: string;
    args: unknown;
    result: ToolResult;
  },
): void {
  const outcome: AuditOutcome = call.result.success
    ? call.result.deduplicated
      ? 'deduplicated'
      : 'ok'
    : call.result.error.code === 'FORBIDDEN'
      ? 'refused'
      : 'failed';
  audit.record({
    tokenName: call.identity.tokenName,
    client: call.client,
    action: call.tool,
    path: pathOfToolCall(call.args, call.result),
    outcome,
    errorCode: call.result.success ? undefined : call.result.error.code,
  });
}

/** The vault path a tool call touched: from its result, else its arguments. */
export function pathOfToolCall(args: unknown, result: ToolResult): string | undefined {
  return pathOf(result.success ? result.data : undefined) ?? pathOf(args);
}

/** `path`, `note.path` or `reminder.path` of a result or arguments object. */
function pathOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const holder of [value, value.note, value.reminder]) {
    if (isRecord(holder) && typeof holder.path === 'string') return holder.path;
  }
  return undefined;
}
