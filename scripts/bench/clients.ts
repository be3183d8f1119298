/*
 * The clients bench (issue #14): MCP `search` over Streamable HTTP and `/v1/chat/completions`
 * (not streamed; streamed: time to the first chunk and to the first content) against the
 * companion app listening on 127.0.0.1, at a generated vault of `notes` notes, with the
 * official SDK and `openai` clients. No LLM: answers are extractive. `GET /api/v1/search` for
 * the same queries runs side by side, so the protocol's own cost shows as a ratio.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { buildApp } from '../../companion/app';
import { generateToken, sha256 } from '../../companion/auth/token';
import { DEFAULT_FOLDERS } from '../../shared/settings';
import { generatedVault, openIndex, scratch } from './fixtures';
import { HashEmbedder } from './hash-embedder';
import { percentile, table } from './stats';

export async function runClientsBench(options: { notes: number; queries: number }): Promise<void> {
  const dir = scratch('clients');
  try {
    const started = Date.now();
    const { vault, info } = generatedVault(dir.path, options.notes);
    const embedder = new HashEmbedder();
    const index = await openIndex(vault, join(dir.path, 'cairn.db'), { embedder });
    await index.indexer.whenIdle();
    console.log(
      `vault: ${info.notes} notes, indexed in ${((Date.now() - started) / 1000).toFixed(1)} s (hash embedder)`,
    );

    const token = generateToken();
    const app = await buildApp({
      config: {
        vault,
        port: 0,
        host: '127.0.0.1',
        dataDir: join(dir.path, 'data'),
        dataDirSource: 'flag',
        timezone: 'Europe/Berlin',
        timezoneSource: 'flag',
        tls: null,
        logLevel: 'silent',
        pushHosts: [],
        graceHours: 24,
        trustProxy: [],
        folders: DEFAULT_FOLDERS,
      },
      db: index.db,
      clock: { now: () => Date.now() },
      tokenSha256: sha256(token),
      version: 'bench',
      search: { index: () => index.indexer.queries, embedder: () => embedder },
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    // Two- and three-word queries from the vault's vocabulary, common to rare.
    const words = info.vocabulary;
    const queries = Array.from({ length: options.queries }, (_, i) =>
      [words[(i * 7) % 200], words[(i * 13 + 50) % 1000], i % 3 === 0 ? words[(i * 31) % 3000] : '']
        .filter(Boolean)
        .join(' '),
    );

    const mcp = new Client({ name: 'bench', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: token, maxRetries: 0 });

    const time = async (run: (query: string) => Promise<unknown>): Promise<number[]> => {
      for (const query of queries.slice(0, 5)) await run(query); // warm-up
      const samples: number[] = [];
      for (const query of queries) {
        const start = performance.now();
        await run(query);
        samples.push(performance.now() - start);
      }
      return samples;
    };

    // Interleaved rounds would mix caches; each series runs whole, in one process, one after another.
    const rest = await time(async (query) => {
      const response = await fetch(`${url}/api/v1/search?q=${encodeURIComponent(query)}&limit=10`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      await response.json();
    });
    const mcpSearch = await time((query) =>
      mcp.callTool({ name: 'search', arguments: { query, limit: 10 } }),
    );
    const completion = await time((query) =>
      openai.chat.completions.create({
        model: 'cairn',
        messages: [{ role: 'user', content: `What do my notes say about ${query}?` }],
      }),
    );
    const firstChunk: number[] = [];
    const firstContent: number[] = [];
    const whole: number[] = [];
    for (const query of queries) {
      const start = performance.now();
      const stream = await openai.chat.completions.create({
        model: 'cairn',
        stream: true,
        messages: [{ role: 'user', content: `What do my notes say about ${query}?` }],
      });
      let sawChunk = false;
      let sawContent = false;
      for await (const chunk of stream) {
        const now = performance.now() - start;
        if (!sawChunk) {
          firstChunk.push(now);
          sawChunk = true;
        }
        if (!sawContent && (chunk.choices[0]?.delta.content ?? '') !== '') {
          firstContent.push(now);
          sawContent = true;
        }
      }
      whole.push(performance.now() - start);
    }

    const ms = (value: number) => value.toFixed(1);
    const base = percentile(rest, 0.5);
    const row = (name: string, samples: number[]) => [
      name,
      ms(percentile(samples, 0.5)),
      ms(percentile(samples, 0.95)),
      `${(percentile(samples, 0.5) / base).toFixed(2)}×`,
    ];
    console.log(
      table(
        [
          'series (' + options.queries + ' queries, ' + info.notes + ' notes)',
          'p50 ms',
          'p95 ms',
          'p50 / REST search',
        ],
        [
          row('GET /api/v1/search (baseline)', rest),
          row('MCP tools/call search', mcpSearch),
          row('/v1/chat/completions, not streamed', completion),
          row('  streamed: first chunk', firstChunk),
          row('  streamed: first content', firstContent),
          row('  streamed: whole answer', whole),
        ],
      ),
    );
    await mcp.close();
    await app.close(); // closes the database too
    await index.indexer.close();
  } finally {
    dir.remove();
  }
}
