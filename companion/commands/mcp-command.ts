import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TOKEN_FILE } from '../auth/token';
import { runningServer } from '../clients/server-file';
import type { Logger } from '../logging';
import type { RunningServer } from '../server';
import { COMPANION_VERSION } from '../version';

/**
 * `cairn-companion mcp --vault …` (docs/clients.md): MCP over stdio for assistants that start a
 * command (Claude Desktop, Cursor). It relays to the `/mcp` endpoint of the companion serving
 * this data folder, so there is one tool implementation, one scope check and one audit log:
 * - a companion already runs (found through `server.json` and answering `/health`): relay to it;
 *   the database is not opened here, so there is no second writer;
 * - none runs: start one in this process on a loopback port chosen by the system (indexer,
 *   scheduler and all) and relay to it; it stops when the assistant closes stdin.
 * stdout carries only MCP messages; logs go to stderr.
 */
export async function runMcpCommand(options: {
  dataDir: string;
  /** The token to present (`CAIRN_MCP_TOKEN` or `CAIRN_TOKEN`); else the data folder's file. */
  envToken: string | undefined;
  logger: Logger;
  /** Starts a companion on 127.0.0.1:0 over this data folder (the caller's startServer). */
  startLocal: () => Promise<RunningServer>;
}): Promise<void> {
  const { logger } = options;
  let local: RunningServer | undefined;
  let target = await runningServer(options.dataDir);
  if (target === undefined) {
    logger.info('no companion is running on this data folder; starting one for this MCP session');
    local = await options.startLocal();
    target = local.url;
  } else {
    logger.info({ url: target }, 'relaying MCP to the running companion');
  }
  const token = options.envToken ?? readFileSync(join(options.dataDir, TOKEN_FILE), 'utf8').trim();

  const upstream = new Client({ name: 'cairn-companion-stdio', version: COMPANION_VERSION });
  await upstream.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', target), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const relay = new Server(
    { name: 'cairn', version: COMPANION_VERSION },
    { capabilities: { tools: {} }, ...instructionsOf(upstream) },
  );
  relay.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  relay.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params));

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await relay.connect(transport);
  await closed;
  await upstream.close();
  await local?.stop();
}

function instructionsOf(client: Client): { instructions?: string } {
  const instructions = client.getInstructions();
  return instructions === undefined ? {} : { instructions };
}
