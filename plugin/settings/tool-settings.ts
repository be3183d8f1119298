/**
 * The settings tab's "Tools the chat may use" (docs/tools.md): the companion's tool list and
 * MCP servers, read and changed through the admin-scoped `/api/v1/tools` routes. Every request
 * goes through CompanionClient.send (URL check, offline mode, token); each answer is checked
 * against the shared protocol schemas. Failures come back as sentences for the settings tab,
 * with a code saying which kind, never thrown.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  ToolListResponse,
  ToolListing,
  ToolServerList,
  ToolServerStatus,
} from '../../shared/protocol/tools';
import type { ToolPatch, ToolServerConfig } from '../../shared/protocol/tools';
import { errorBodyMessage, parseJsonOrUndefined } from '../../shared/protocol/json';
import { checkSchema } from '../../shared/protocol/validate';
import type { CompanionClient, CompanionRequest } from '../connection/client';
import type { LocalToolListing } from '../chat/local-tool-policy';
import { TOOL_DANGER_WORDS } from '../../shared/protocol/tools';

/** Why a tools request failed: the tab shows the message, tests check the code. */
export type ToolsFailureCode =
  | 'not-sent'
  | 'unreachable'
  | 'unauthorized'
  | 'not-admin'
  | 'no-tools-api'
  | 'refused'
  | 'bad-answer';

export type ToolsResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: ToolsFailureCode; readonly message: string };

export interface ToolsOverview {
  readonly tools: ToolListing[];
  readonly servers: ToolServerStatus[];
}

const NOT_ADMIN =
  'This token is not an admin token: the tool list needs the admin scope. Use the token the companion printed on first start, or create one with `cairn-companion token create --name NAME --scope read,write,admin`.';

export class CompanionTools {
  constructor(private readonly client: CompanionClient) {}

  /** The tools and the MCP servers, together: the section shows both. */
  async load(): Promise<ToolsResult<ToolsOverview>> {
    const tools = await this.exchange({ method: 'GET', path: '/api/v1/tools' }, ToolListResponse);
    if (!tools.ok) return tools;
    const servers = await this.servers();
    if (!servers.ok) return servers;
    return { ok: true, value: { tools: tools.value.tools, servers: servers.value } };
  }

  async servers(): Promise<ToolsResult<ToolServerStatus[]>> {
    const list = await this.exchange(
      { method: 'GET', path: '/api/v1/tools/servers' },
      ToolServerList,
    );
    return list.ok ? { ok: true, value: list.value.servers } : list;
  }

  /** `PATCH /api/v1/tools/:name`: the permission or switch for everything; the tool as stored. */
  async update(
    name: string,
    patch: Pick<ToolPatch, 'enabled' | 'permission'>,
  ): Promise<ToolsResult<ToolListing>> {
    return this.exchange(
      { method: 'PATCH', path: `/api/v1/tools/${encodeURIComponent(name)}`, body: patch },
      ToolListing,
    );
  }

  async addServer(config: ToolServerConfig): Promise<ToolsResult<ToolServerStatus>> {
    return this.exchange(
      { method: 'POST', path: '/api/v1/tools/servers', body: config },
      ToolServerStatus,
    );
  }

  async removeServer(name: string): Promise<ToolsResult<null>> {
    return this.exchange({
      method: 'DELETE',
      path: `/api/v1/tools/servers/${encodeURIComponent(name)}`,
    });
  }

  private async exchange(request: CompanionRequest): Promise<ToolsResult<null>>;
  private async exchange<T extends TSchema>(
    request: CompanionRequest,
    schema: T,
  ): Promise<ToolsResult<Static<T>>>;
  private async exchange<T extends TSchema>(
    request: CompanionRequest,
    schema?: T,
  ): Promise<ToolsResult<Static<T> | null>> {
    const sent = await this.client.send(request, { requireToken: true });
    if (sent.kind === 'not-sent') {
      const message =
        sent.reason === 'no-url'
          ? 'Set the companion URL first.'
          : sent.reason === 'no-token'
            ? 'Set the API token first.'
            : sent.message;
      return { ok: false, code: 'not-sent', message };
    }
    if (sent.kind === 'unreachable') {
      const why = sent.error instanceof Error ? sent.error.message : String(sent.error);
      return {
        ok: false,
        code: 'unreachable',
        message: `The companion at ${sent.url} is unreachable (${why}).`,
      };
    }
    const { status, text } = sent.response;
    const route = `${request.method} ${request.path}`;
    if (status === 401) {
      return {
        ok: false,
        code: 'unauthorized',
        message: 'The companion rejected the token (401). Copy it again from the companion.',
      };
    }
    if (status === 403) return { ok: false, code: 'not-admin', message: NOT_ADMIN };
    if (status === 404 && request.method === 'GET') {
      return {
        ok: false,
        code: 'no-tools-api',
        message: 'This companion has no tools API (404). Update the companion.',
      };
    }
    if (status < 200 || status > 299) {
      const detail = errorBodyMessage(parseJsonOrUndefined(text));
      return {
        ok: false,
        code: 'refused',
        message: `${route} answered ${status}${detail === undefined ? '' : `: ${detail}`}`,
      };
    }
    if (schema === undefined) return { ok: true, value: null };
    const body = checkSchema(schema, parseJsonOrUndefined(text));
    if (!body.ok) {
      return { ok: false, code: 'bad-answer', message: `${route}: ${body.violation.message}` };
    }
    return { ok: true, value: body.value };
  }
}

/**
 * What the "Add a server" fields mean: a URL (anything with a scheme) for Streamable HTTP, else
 * a command for stdio, with its arguments one per line. The companion checks the rest and
 * names the field it refuses.
 */
export function serverConfigFrom(fields: {
  name: string;
  target: string;
  args: string;
}): ToolServerConfig | string {
  const name = fields.name.trim();
  const target = fields.target.trim();
  if (name === '') return 'Name the server (letters, digits and "-").';
  if (target === '') return 'Enter a command (e.g. npx) or a URL (http://…/mcp).';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target)) {
    if (fields.args.trim() !== '') return 'Arguments go with a command, not with a URL.';
    return { name, url: target };
  }
  const args = fields.args
    .split('\n')
    .map((arg) => arg.trim())
    .filter((arg) => arg !== '');
  return { name, command: target, ...(args.length > 0 ? { args } : {}) };
}

/** A tool's source in words: Cairn's own, or the MCP server it comes from. */
export function toolSourceWords(source: string): string {
  return source === 'cairn' ? 'Cairn' : `MCP: ${source}`;
}

/** One tool of this device's chat in words: what it may do, and whether it is the default. */
export function describeLocalTool(tool: LocalToolListing): string {
  const parts = [TOOL_DANGER_WORDS[tool.danger]];
  if (tool.alwaysAsks) parts.push('Asks every time, even when allowed');
  if (tool.isDefault) parts.push('Default');
  return parts.join(' · ');
}
