import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../companion/app';
import { sha256 } from '../../companion/auth/token';
import { openDatabase } from '../../companion/db/open';
import { ManualClock } from '../fakes/clock';
import { FakeOllamaServer } from '../fakes/ollama-server';
import {
  SAMPLE_VAULT,
  copySampleVault,
  tempDir,
  testConfig,
  TEST_TOKEN,
} from '../companion/helpers/app';
import { HashingEmbedder, startIndexer } from '../companion/search/helpers';
import type { IndexerFixture } from '../companion/search/helpers';
import { repoRoot } from '../helpers/corpora';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildPhonePage } from '../helpers/phone-page';

/*
 * The ask card on the phone page (docs/tools.md) in a real headless Chromium, phone (390x844)
 * and desktop (1280x800), light and dark: the real companion, the chat routed by the fake
 * Ollama's tool calling to a tool of a real MCP server (official SDK, over stdio). The card
 * shows the exact call and why; Deny ends the turn with the refusal; Allow once runs the tool.
 * The screenshots go to docs/images/tools/ when CAIRN_SCREENSHOTS=docs, else a temp folder.
 */
const availability = browserAvailability();
const SERVER_SCRIPT = fileURLToPath(new URL('../fakes/mcp-tool-server.mjs', import.meta.url));

describe.skipIf(!availability.available)('the ask card on the phone page', () => {
  let web: { webRoot: string; remove: () => void };
  let dir: { path: string; remove: () => void };
  let index: IndexerFixture;
  let ollama: FakeOllamaServer;
  let app: FastifyInstance;
  let origin: string;
  let browser: LaunchedBrowser;
  const toDocs = process.env.CAIRN_SCREENSHOTS === 'docs';
  const shots = toDocs
    ? join(repoRoot, 'docs/images/tools')
    : mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    web = await buildPhonePage();
    dir = tempDir('phone-tool-ask');
    const embedder = new HashingEmbedder();
    index = await startIndexer({ source: SAMPLE_VAULT, embedder });
    ollama = await FakeOllamaServer.start();
    const vault = copySampleVault(dir.path);
    app = await buildApp({
      config: testConfig(vault, join(dir.path, 'data')),
      db: openDatabase(':memory:'),
      clock: ManualClock.at('2026-11-27T10:00:00Z'),
      tokenSha256: sha256(TEST_TOKEN),
      version: '0.0.0-test',
      webRoot: web.webRoot,
      search: { index: () => index.indexer.queries, embedder: () => embedder },
      chat: { ollama: { baseUrl: ollama.url, model: 'llama3.2', route: true } },
      tools: { offline: () => false },
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const added = await app.inject({
      method: 'POST',
      url: '/api/v1/tools/servers',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      payload: { name: 'files', command: process.execPath, args: [SERVER_SCRIPT, '--stdio'] },
    });
    expect(added.statusCode, added.body).toBe(201);
    ollama.chatReply = {
      content: 'I will look the word up in your files server to answer.',
      toolCalls: [{ function: { name: 'files__lookup', arguments: { word: 'tarn' } } }],
    };
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await ollama?.close();
    await index?.close();
    dir?.remove();
    web?.remove();
    if (!toDocs) rmSync(shots, { recursive: true, force: true });
  });

  async function askInChat(size: { width: number; height: number }, scheme: 'light' | 'dark') {
    const page: Page = await browser.context.newPage();
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${origin}/#token=${TEST_TOKEN}`);
    await page.waitForSelector('#home:not([hidden])');
    await page.click('#tab-chat');
    await page.fill('#chat-input', 'What is a tarn?');
    await page.click('#chat-send');
    await page.waitForSelector('.ask-card');
    return page;
  }

  const sizes = [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 800 }],
  ] as const;

  for (const [label, size] of sizes) {
    it.each(['light', 'dark'] as const)(
      `${label} %s: shows the call and denies it`,
      async (scheme) => {
        const page = await askInChat(size, scheme);
        const card = page.locator('.ask-card');
        expect(await card.locator('code').first().textContent()).toBe('files__lookup');
        expect(await card.locator('.ask-reason').textContent()).toContain(
          'I will look the word up in your files server',
        );
        expect(await card.locator('.ask-args').textContent()).toContain('"word": "tarn"');
        expect(await card.locator('button').allTextContents()).toEqual([
          'Allow once',
          'Allow for this conversation',
          'Deny',
        ]);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(size.width);
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `phone-page-ask-${label}-${scheme}.png`) });
        await card.locator('button', { hasText: 'Deny' }).click();
        await page.waitForSelector('.bubble-error');
        expect(await page.locator('.bubble-error').last().textContent()).toContain(
          'you declined to run files__lookup',
        );
        await page.close();
      },
    );
  }

  it('Allow once runs the tool; the tool list sets a permission', async () => {
    const page = await askInChat({ width: 390, height: 844 }, 'light');
    await page.locator('.ask-card button', { hasText: 'Allow once' }).click();
    await page.waitForFunction(() =>
      document.querySelector('.bubble.assistant .bubble-text')?.textContent?.includes('tarn:'),
    );
    expect(await page.locator('.bubble.assistant .bubble-text').last().textContent()).toContain(
      'tarn: a word the test server knows.',
    );
    // The list of tools under the chat, with a permission per tool (the owner token is admin).
    await page.click('#chat-tools summary');
    await page.waitForSelector('.tool-row');
    const rows = await page.locator('.tool-row code').allTextContents();
    expect(rows).toEqual(expect.arrayContaining(['search', 'create_note', 'files__lookup']));
    await page.selectOption('select[aria-label="Permission for files__lookup"]', 'allow');
    await expect
      .poll(async () => {
        const listed = await app.inject({
          method: 'GET',
          url: '/api/v1/tools',
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
        });
        const tools = (listed.json() as { tools: Array<{ name: string; permission: string }> })
          .tools;
        return tools.find((tool) => tool.name === 'files__lookup')?.permission;
      })
      .toBe('allow');
    await page.locator('.tool-row', { hasText: 'files__lookup' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'phone-page-tools-list-phone-light.png') });
    await page.close();
  });
});
