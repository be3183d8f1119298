#!/usr/bin/env node
// Benchmark of the clients' routes (issue #14): MCP `search` and `/v1/chat/completions`
// latency p50/p95 (no LLM), time to the first streamed chunk, at a generated vault, beside
// `GET /api/v1/search` for the same queries. See scripts/bench/clients.ts.
//
//   node scripts/bench/clients.mjs [--notes 10000] [--queries 100]
import { parseArgs } from 'node:util';
import { bundleForNode } from '../bundle-for-node.mjs';

const { values } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '100' },
  },
});
const notes = Number(values.notes);
const queries = Number(values.queries);
if (!Number.isInteger(notes) || notes < 10)
  throw new Error(`--notes must be an integer ≥ 10, got ${values.notes}`);
if (!Number.isInteger(queries) || queries < 10)
  throw new Error(`--queries must be an integer ≥ 10, got ${values.queries}`);

// Its own cache folder: node_modules/.cache is shared by everything that bundles benches.
const bundle = await bundleForNode('cairn-bench-clients', { clients: 'scripts/bench/clients.ts' });
const { runClientsBench } = await bundle.load('clients');
await runClientsBench({ notes, queries });
