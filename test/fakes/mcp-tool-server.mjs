// A real MCP server for the tools tests (docs/tools.md), written with the official SDK's
// low-level `Server` so the tests control every schema (one of them does not compile).
// `node test/fakes/mcp-tool-server.mjs` serves it over stdio; `createToolServer()` gives the
// same server for a Streamable HTTP transport in the test's own process.
//
// Tools: `lookup` (read-only), `write_file` (changes something), `crash` (the process dies
// mid-call), `huge` (answers 10 MB), `never` (never answers), `broken_schema` (its input schema
// does not compile). Every call is appended to `calls` (and, over stdio, to the file named by
// the argument after `--stdio`: the SDK starts servers with a minimal environment), so tests
// can tell whether a call reached the server.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const TOOL_DEFINITIONS = [
  {
    name: 'lookup',
    description: 'Look a word up in the test dictionary.',
    inputSchema: {
      type: 'object',
      properties: { word: { type: 'string', minLength: 1 } },
      required: ['word'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'write_file',
    description: 'Write a file on the test server.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, text: { type: 'string' } },
      required: ['name', 'text'],
    },
  },
  {
    name: 'crash',
    description: 'Dies mid-call.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'huge',
    description: 'Answers ten megabytes.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'never',
    description: 'Never answers.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'broken_schema',
    description: 'Its schema does not compile.',
    inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } },
    annotations: { readOnlyHint: true },
  },
];

export function createToolServer(options = {}) {
  const calls = options.calls ?? [];
  const server = new Server(
    { name: 'test-tools', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_DEFINITIONS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    calls.push({ name, args });
    if (options.callsFile) appendFileSync(options.callsFile, `${JSON.stringify({ name, args })}\n`);
    switch (name) {
      case 'lookup':
        return { content: [{ type: 'text', text: `${args.word}: a word the test server knows.` }] };
      case 'write_file':
        return { content: [{ type: 'text', text: `wrote ${args.name}` }] };
      case 'crash':
        if (options.onCrash) return options.onCrash();
        process.exit(3);
        return { content: [] };
      case 'huge':
        return { content: [{ type: 'text', text: 'x'.repeat(10 * 1024 * 1024) }] };
      case 'never':
        return new Promise(() => undefined);
      default:
        return { isError: true, content: [{ type: 'text', text: `no tool ${name}` }] };
    }
  });
  return { server, calls };
}

if (process.argv[2] === '--stdio') {
  const { server } = createToolServer({ callsFile: process.argv[3] });
  await server.connect(new StdioServerTransport());
  process.stderr.write('test-tools ready\n');
}
