/**
 * The chat pane as Obsidian users see it: ChatPane.svelte and the real ChatSession bundled with
 * esbuild-svelte (the plugin's own compiler options), on a page with Obsidian's CSS variables
 * and the plugin's chat stylesheet, in headless Chromium. A scripted backend plays a
 * conversation (a question answered with two citations, then a reminder with its card); the
 * test checks what is drawn and takes a screenshot (kept when CAIRN_SCREENSHOTS names a folder).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';

const availability = browserAvailability();
const WIDTH = 420;
const HEIGHT = 760;

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

describe.skipIf(!availability.available)('the chat pane in Chromium', () => {
  let browser: LaunchedBrowser;
  let html = '';
  const keepShots = process.env.CAIRN_SCREENSHOTS;
  const shots = keepShots ?? mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  beforeAll(async () => {
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
    expect(script.length).toBeGreaterThan(10_000);
    const css = readFileSync('styles/10-chat-pane.css', 'utf8');
    html = `<!doctype html><html><head><meta charset="utf-8"><style>${OBSIDIAN_VARIABLES}\n${css}</style></head>
<body><div class="workspace-leaf-content cairn-view view-content"></div>
<script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (!keepShots) rmSync(shots, { recursive: true, force: true });
  });

  async function emit(page: Page, events: unknown[]): Promise<void> {
    await page.evaluate((list) => {
      (
        window as unknown as { cairn: { backend: { emit(...e: unknown[]): void } } }
      ).cairn.backend.emit(...list);
    }, events);
  }

  it('plays a cited answer and a reminder card, opens citations, undoes, and screenshots', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setViewportSize({ width: WIDTH, height: HEIGHT });
    await page.setContent(html);
    const input = page.getByLabel('Message');
    await expect.poll(() => input.isEnabled()).toBe(true);

    await input.fill('How much is the visa fee, and how long does it take?');
    await input.press('Enter');
    await page.waitForSelector('.cairn-chat-message-assistant[data-streaming="true"]');
    expect(await page.isVisible('.cairn-composer-stop')).toBe(true);
    await emit(page, [{ type: 'token', text: 'The standard visa fee is **$50** [1]' }]);
    await page.waitForFunction(() =>
      document.querySelector('.cairn-chat-streaming')?.textContent?.includes('$50'),
    );
    await emit(page, [
      { type: 'token', text: ', and processing takes ten working days [2].' },
      {
        type: 'citations',
        citations: [
          {
            type: 'note',
            path: 'Travel/Visa rules.md',
            title: 'Visa rules summary',
            heading: 'Key points',
            lines: [12, 18],
            excerpt: 'Fee is $50 for standard processing; express costs $90.',
            score: 0.83,
          },
          {
            type: 'pdf',
            path: 'Attachments/visa-form.pdf',
            title: 'Visa application form',
            page: 3,
            excerpt: 'Applications are processed within ten working days.',
            score: 0.61,
          },
        ],
      },
      { type: 'done', conversation: 'Cairn/Chats/2026-11-23 visa fee.md' },
    ]);
    await page.waitForSelector('.cairn-chat-markdown strong');
    expect(await page.textContent('.cairn-chat-markdown strong')).toBe('$50');
    const chips = page.locator('.cairn-citation-chip');
    expect(await chips.allTextContents()).toEqual([
      expect.stringMatching(/1\s*Visa rules summary › Key points/),
      expect.stringMatching(/2\s*Visa application form › p\. 3/),
    ]);
    await chips.nth(1).click();
    const opened = (await page.evaluate(
      () => (window as unknown as { cairn: { opened: unknown[] } }).cairn.opened,
    )) as Array<{ path: string; page?: number }>;
    expect(opened).toEqual([
      expect.objectContaining({ path: 'Attachments/visa-form.pdf', page: 3 }),
    ]);

    await input.fill('remind me next Monday at 8 to call the bank');
    await input.press('Enter');
    await emit(page, [
      { type: 'token', text: 'Reminder set: "Call the bank", Mon 23 Nov 2026, 08:00.' },
      {
        type: 'tool',
        name: 'create_reminder',
        args: { title: 'Call the bank', due: '2026-11-23T08:00' },
        result: {
          success: true,
          data: {
            reminder: {
              id: 'r1',
              title: 'Call the bank',
              due: '2026-11-23T08:00:00+01:00',
              timezone: 'Europe/Berlin',
              path: 'Cairn/Reminders/call-the-bank.md',
              status: 'active',
            },
            undo: { kind: 'delete_reminder', id: 'r1', path: 'Cairn/Reminders/call-the-bank.md' },
          },
        },
      },
      { type: 'done', conversation: 'Cairn/Chats/2026-11-23 visa fee.md' },
    ]);
    await page.waitForSelector('.cairn-tool-card[data-tool="create_reminder"]');
    const card = page.locator('.cairn-tool-card');
    expect(await card.textContent()).toContain('Cairn/Reminders/call-the-bank.md');
    expect(await page.isVisible('text=Search: keyword only (no embedding provider)')).toBe(true);

    // Hovering a chip shows its excerpt, as it will be in the screenshot.
    await chips.first().hover();
    await page.waitForSelector('.cairn-citation-excerpt', { state: 'visible' });
    expect(await page.locator('.cairn-citation-excerpt').first().textContent()).toBe(
      'Fee is $50 for standard processing; express costs $90.',
    );
    const tipBox = await page.locator('.cairn-citation-excerpt').first().boundingBox();
    expect(tipBox?.width).toBeGreaterThan(50);

    mkdirSync(shots, { recursive: true });
    const file = join(shots, 'chat-pane.png');
    await page.screenshot({ path: file });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(WIDTH);
    expect(png.readUInt32BE(20)).toBe(HEIGHT);
    expect(png.length).toBeGreaterThan(20_000);

    await card.getByRole('button', { name: 'Undo' }).click();
    await page.waitForSelector('.cairn-tool-card[data-undo="undone"]');
    const undone = await page.evaluate(
      () =>
        (window as unknown as { cairn: { backend: { undone: unknown[] } } }).cairn.backend.undone,
    );
    expect(undone).toEqual([
      { kind: 'delete_reminder', id: 'r1', path: 'Cairn/Reminders/call-the-bank.md' },
    ]);

    // The layout holds: the message list scrolls inside the pane, the composer stays in view.
    const composer = await page.locator('.cairn-composer').boundingBox();
    expect(composer).not.toBeNull();
    expect((composer?.y ?? 0) + (composer?.height ?? 0)).toBeLessThanOrEqual(HEIGHT);
    expect(errors).toEqual([]);
    await page.close();
  });
});
