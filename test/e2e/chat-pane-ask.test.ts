/**
 * The ask card in the plugin's chat pane (docs/tools.md): ChatPane.svelte and the real
 * ChatSession bundled as the plugin bundles them, in headless Chromium, light and dark, at a
 * desktop (1280x800) and a phone (390x844) size. A scripted backend streams an `ask` (a tool of
 * the user's MCP server, with the model's reason); the card shows the exact call, and its
 * buttons answer through the backend's `answerAsk`, as the companion's
 * `POST /api/v1/tools/asks/:id` would be called. Screenshots go to docs/images/tools/ with
 * CAIRN_SCREENSHOTS=docs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';

const availability = browserAvailability();

/** The page's script: mounts the pane over a session whose backend the test drives. */
const ENTRY = `
import { mount } from 'svelte';
import ChatPane from './plugin/chat/ui/ChatPane.svelte';
import { ChatServicesSlot, ChatSession } from './plugin/chat/chat-session';

class PageBackend {
  sent = [];
  undone = [];
  queue = [];
  wake = null;
  async *send(message) {
    this.sent.push(message);
    for (;;) {
      const event = this.queue.shift();
      if (event === undefined) {
        await new Promise((resolve) => (this.wake = resolve));
        continue;
      }
      yield event;
      if (event.type === 'done' || event.type === 'error') return;
    }
  }
  answered = [];
  async answerAsk(id, decision) {
    this.answered.push({ id, decision });
  }
  async undo(action) {
    this.undone.push(action);
    return { success: true, data: { undone: action.kind } };
  }
  emit(...events) {
    this.queue.push(...events);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

const backend = new PageBackend();
const session = new ChatSession(backend, undefined, () => 'keyword only (no embedding provider)');
const opened = [];
const chat = new ChatServicesSlot();
chat.set({
  session,
  // Obsidian's MarkdownRenderer stands here: paragraphs and **bold**, nothing more.
  renderMarkdown(el, text) {
    for (const block of text.split(/\\n{2,}/)) {
      const p = document.createElement('p');
      for (const [index, part] of block.split(/\\*\\*/).entries()) {
        const node = index % 2 === 1 ? document.createElement('strong') : document.createElement('span');
        node.textContent = part;
        p.append(node);
      }
      el.append(p);
    }
  },
  openCitation: (citation) => opened.push(citation),
  openFile: (path) => opened.push({ file: path }),
});
const connection = {
  subscribe(listener) {
    listener({ kind: 'connected', status: { version: '0.1.0', files: 128, pending: 0, failed: 0, embedding: null } });
    return () => {};
  },
};
const root = document.querySelector('.workspace-leaf-content');
mount(ChatPane, { target: root, props: { connection, chat, onRetry() {}, onOpenSettings() {} } });
window.cairn = { backend, session, opened };
`;

/** The Obsidian theme variables the pane's stylesheet uses (default light theme values). */
const OBSIDIAN_VARIABLES = `
:root {
  --font-interface: -apple-system, 'Segoe UI', Roboto, 'Inter', sans-serif;
  --font-ui-smaller: 12px; --font-ui-small: 13px; --font-ui-medium: 15px;
  --font-semibold: 600; --line-height-normal: 1.5;
  --size-4-1: 4px; --size-4-2: 8px; --size-4-3: 12px; --size-4-4: 16px;
  --radius-m: 8px; --radius-l: 12px; --border-width: 1px;
  --background-primary: #ffffff; --background-secondary: #f6f6f6;
  --background-modifier-border: #e0e0e0; --background-modifier-hover: rgba(0, 0, 0, 0.075);
  --background-modifier-error: #e93147;
  --text-normal: #222222; --text-muted: #5c5c5c; --text-faint: #ababab;
  --text-accent: #8a5cf5; --text-accent-hover: #a27cf7; --text-on-accent: #ffffff;
  --text-error: #e93147; --text-warning: #ec7500;
  --interactive-accent: #8a5cf5; --color-green: #08b94e; --color-orange: #ec7500;
  --color-red: #e93147; --color-red-rgb: 233, 49, 71;
  --shadow-s: 0 1px 4px rgba(0, 0, 0, 0.15); --layer-tooltip: 70; --cursor: pointer;
}
html, body { margin: 0; height: 100%; background: var(--background-primary); }
body { font-family: var(--font-interface); color: var(--text-normal); }
button { font: inherit; font-size: var(--font-ui-small); padding: 4px 12px; height: 30px;
  border-radius: 6px; border: 0; background: var(--background-secondary);
  box-shadow: 0 0 0 1px var(--background-modifier-border); cursor: pointer; }
textarea { font: inherit; padding: 6px 8px; border-radius: 6px;
  border: 1px solid var(--background-modifier-border); }
.workspace-leaf-content { height: 100%; }
`;

/** Obsidian's default dark theme values for the same variables. */
const OBSIDIAN_DARK = `
:root {
  --background-primary: #1e1e1e; --background-secondary: #262626;
  --background-modifier-border: #363636; --background-modifier-hover: rgba(255, 255, 255, 0.075);
  --text-normal: #dadada; --text-muted: #b3b3b3; --text-faint: #666666;
  --text-accent: #a68af9; --text-error: #fb464c; --text-warning: #e9973f;
  --interactive-accent: #7f6df2;
}
`;

const ASK = {
  type: 'ask',
  ask: {
    id: 'ask-7Qx2',
    tool: 'files__write_file',
    source: 'files',
    danger: 'high',
    args: { name: 'Shopping.txt', text: 'rope, tarp, matches' },
    reason: 'You asked me to save the list; I will write it with your files server.',
    expires_at: '2026-11-27T10:02:00Z',
  },
};
const LOOKUP = {
  type: 'ask',
  ask: {
    id: 'ask-9Lk4',
    tool: 'files__lookup',
    source: 'files',
    danger: 'low',
    args: { word: 'tarn' },
    reason: 'I will look the word up in your files server to answer.',
    expires_at: '2026-11-27T10:02:00Z',
  },
};

describe.skipIf(!availability.available)('the ask card in the chat pane', () => {
  let browser: LaunchedBrowser;
  const pages: Record<string, string> = {};
  const toDocs = process.env.CAIRN_SCREENSHOTS === 'docs';
  const shots = toDocs ? resolve('docs/images/tools') : mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const { build } = await import('esbuild');
    const { default: sveltePlugin } = await import('esbuild-svelte');
    const bundled = await build({
      stdin: { contents: ENTRY, resolveDir: resolve('.'), loader: 'ts', sourcefile: 'entry.ts' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      mainFields: ['svelte', 'browser', 'module', 'main'],
      conditions: ['svelte', 'browser'],
      outdir: 'out',
      logLevel: 'silent',
      plugins: [sveltePlugin({ compilerOptions: { css: 'external', dev: false } })],
    });
    const script = bundled.outputFiles.find((file) => file.path.endsWith('.js'))?.text ?? '';
    const css = readFileSync('styles/10-chat-pane.css', 'utf8');
    for (const scheme of ['light', 'dark']) {
      const theme = scheme === 'dark' ? OBSIDIAN_DARK : '';
      pages[scheme] =
        `<!doctype html><html><head><meta charset="utf-8"><style>${OBSIDIAN_VARIABLES}\n${theme}\n${css}</style></head>
<body><div class="workspace-leaf-content cairn-view view-content"></div>
<script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (!toDocs) rmSync(shots, { recursive: true, force: true });
  });

  async function emit(page: Page, events: unknown[]): Promise<void> {
    await page.evaluate((list) => {
      (
        window as unknown as { cairn: { backend: { emit(...e: unknown[]): void } } }
      ).cairn.backend.emit(...list);
    }, events);
  }

  async function asked(
    size: { width: number; height: number },
    scheme: 'light' | 'dark',
    ask: unknown,
  ): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize(size);
    await page.setContent(pages[scheme] ?? '');
    const input = page.getByLabel('Message');
    await expect.poll(() => input.isEnabled()).toBe(true);
    await input.fill('Save my shopping list to a file');
    await input.press('Enter');
    await page.waitForSelector('.cairn-chat-message-assistant[data-streaming="true"]');
    await emit(page, [ask]);
    await page.waitForSelector('.cairn-chat-ask');
    return page;
  }

  const sizes = [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const;

  for (const [label, size] of sizes) {
    it.each(['light', 'dark'] as const)(
      `${label} %s: shows the call, and Deny answers it`,
      async (scheme) => {
        const page = await asked(size, scheme, LOOKUP);
        const card = page.locator('.cairn-chat-ask');
        expect(await card.locator('code').textContent()).toBe('files__lookup');
        expect(await card.locator('.cairn-chat-ask-reason').textContent()).toContain(
          'look the word up',
        );
        expect(await card.locator('.cairn-chat-ask-args').textContent()).toContain(
          '"word": "tarn"',
        );
        expect(await card.locator('button').allTextContents()).toEqual([
          'Allow once',
          'Allow for this conversation',
          'Deny',
        ]);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(size.width);
        await page.screenshot({ path: join(shots, `plugin-ask-${label}-${scheme}.png`) });
        await card.locator('button', { hasText: 'Deny' }).click();
        await page.waitForSelector('.cairn-chat-ask[data-state="answered"]');
        expect(await card.locator('.cairn-chat-ask-status').textContent()).toBe('Denied.');
        const answered = await page.evaluate(
          () =>
            (window as unknown as { cairn: { backend: { answered: unknown[] } } }).cairn.backend
              .answered,
        );
        expect(answered).toEqual([{ id: 'ask-9Lk4', decision: 'deny' }]);
        await page.close();
      },
    );
  }

  it('a high tool offers no "for this conversation"; Allow once answers once', async () => {
    const page = await asked({ width: 1280, height: 800 }, 'light', ASK);
    const card = page.locator('.cairn-chat-ask');
    expect(await card.locator('button').allTextContents()).toEqual(['Allow once', 'Deny']);
    expect(await card.locator('.cairn-chat-ask-danger').textContent()).toBe(
      'Can change things Cairn cannot undo',
    );
    await page.screenshot({ path: join(shots, 'plugin-ask-high-desktop-light.png') });
    await card.locator('button', { hasText: 'Allow once' }).click();
    await page.waitForSelector('.cairn-chat-ask[data-state="answered"]');
    expect(await card.locator('.cairn-chat-ask-status').textContent()).toBe('Allowed once.');
    await page.close();
  });
});
