// Screenshots of the plugin's panes for docs/plugin.md: the related-notes view, the search
// modal and the chat with a [[mention]] being typed, each with Obsidian's default light and
// dark theme variables, rendered from the real Svelte components and styles/*.css in headless
// Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH). Data is a small made-up vault, but
// for the knowledge health view: the real report of HEALTH_VAULT (default the sample vault),
// indexed by the real indexer (scripts/eval/health-report.ts) as of today; HEALTH_NAME adds a
// name to its files (plugin-health-<name>-light.png).
//   node scripts/screenshot-plugin.mjs [docs/screenshots]   (SCENES=health,chat: only those)
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import sveltePlugin from 'esbuild-svelte';
import { chromium } from 'playwright-core';
import { bundleForNode } from './bundle-for-node.mjs';

const out = resolve(process.argv[2] ?? 'docs/screenshots');
const wanted = (name) => !process.env.SCENES || process.env.SCENES.split(',').includes(name);
const healthName = process.env.HEALTH_NAME ? `-${process.env.HEALTH_NAME}` : '';
let healthReport = null;
if (wanted('health')) {
  const bundle = await bundleForNode('cairn-health-report', ['scripts/eval/health-report.ts'], {
    withRequire: true,
  });
  const { knowledgeHealthOf } = await bundle.load('health-report');
  const vault = resolve(process.env.HEALTH_VAULT ?? 'companion/sample-vault');
  healthReport = await knowledgeHealthOf(vault, Date.now());
  console.log(`knowledge health of ${vault}: ${JSON.stringify(healthReport)}`);
}

const ENTRY = `
import { mount } from 'svelte';
import { writable } from 'svelte/store';
import RelatedNotes from './plugin/related/ui/RelatedNotes.svelte';
import KnowledgeHealth from './plugin/health/ui/KnowledgeHealth.svelte';
import { describeHealth } from './plugin/health/knowledge-health';
import SearchPanel from './plugin/search/ui/SearchPanel.svelte';
import ChatPane from './plugin/chat/ui/ChatPane.svelte';
import { ChatServicesSlot, ChatSession } from './plugin/chat/chat-session';
import { ChatScope } from './plugin/chat/chat-scope';

const root = document.querySelector('.workspace-leaf-content');
const scene = location.hash.slice(1);

if (scene === 'related') {
  root.classList.add('cairn-related-view');
  mount(RelatedNotes, { target: root, props: {
    view: writable({ kind: 'ready', path: 'Garden/Tomatoes.md', title: 'Tomatoes',
      status: 'Cairn: embedding 1,240/3,900',
      notes: [
        { path: 'Garden/Pest control.md', title: 'Pest control', score: 0.81,
          reasons: ['similar', 'linked-from'], sharedTags: ['garden'],
          section: { heading: 'Aphids', line: 5, excerpt: 'Spray neem oil in the evening; hornworms are picked off by hand before they strip the leaves.' } },
        { path: 'Shopping/Seed catalogue.md', title: 'Seed catalogue', score: 0.62,
          reasons: ['similar', 'links-to'], sharedTags: [],
          section: { line: 3, excerpt: 'San Marzano and Sungold, order in February so they arrive before sowing.' } },
        { path: 'Garden/Peppers.md', title: 'Peppers', score: 0.44,
          reasons: ['similar', 'shared-tags'], sharedTags: ['garden'],
          section: { heading: 'Watering', line: 9, excerpt: 'Like tomatoes, peppers want full sun and deep, steady watering.' } },
        { path: 'Journal/2026-06-14.md', title: '2026-06-14', score: 0.31,
          reasons: ['shared-links'], sharedTags: [] },
      ] }),
    onOpen() {}, onHover() {}, onDragStart() {},
  } });
}

if (scene === 'search') {
  root.classList.add('modal');
  const hit = (path, title, heading, line, excerpt) => ({
    citation: { type: 'note', path, title, heading, lines: [line, line + 2], excerpt, score: 0.8 },
    chunkId: path + '#' + heading, terms: ['visa', 'fee'], mode: 'hybrid' });
  const hits = [
    hit('Travel/Visa rules.md', 'Visa rules', 'Fees', 8, 'The visa fee is $50 for standard processing; express costs $90.'),
    hit('Travel/Japan trip.md', 'Japan trip', 'Paperwork', 14, 'No visa needed for stays under 90 days, so no fee either.'),
    hit('Work/Conference 2026.md', 'Conference 2026', 'Travel', 22, 'Work pays the conference visa fee; keep the receipt.'),
  ];
  const status = writable({ ready: true, mode: 'hybrid', modeLabel: 'hybrid: keyword + use-lite-512', progress: '' });
  mount(SearchPanel, { target: root, props: { search: async () => hits, onOpen() {}, status, debounceMs: 0 } });
}

if (scene === 'chat') {
  const backend = { async *send() {}, async undo() { return { success: true, data: {} }; } };
  const session = new ChatSession(backend, undefined, () => 'hybrid: keyword + use-lite-512');
  const scope = new ChatScope({ resolveLink: (link) => 'Travel/' + link + '.md' });
  scope.attachNote('Travel/Visa rules.md');
  const names = ['Japan trip', 'Japan rail pass', 'Japanese phrases'];
  const chat = new ChatServicesSlot();
  chat.set({
    session,
    renderMarkdown(el, text) { const p = document.createElement('p'); p.textContent = text; el.append(p); },
    openCitation() {}, openFile() {},
    answerActions: { copy() {}, insertAtCursor() {}, appendToNote() {} },
    scope: {
      attached: scope.attached,
      attachActiveNote() {}, attachActiveFolder() {}, detach() {}, beginTurn() {},
      suggestNotes: (query) => names.filter((n) => n.toLowerCase().includes(query.toLowerCase()))
        .map((n) => ({ linkText: n, path: 'Travel/' + n + '.md' })),
    },
  });
  const connection = { subscribe(listener) { listener({ kind: 'connected', status: { version: '0.1.0', files: 128, pending: 0, failed: 0, embedding: null } }); return () => {}; } };
  root.classList.add('cairn-view');
  mount(ChatPane, { target: root, props: { connection, chat, onRetry() {}, onOpenSettings() {} } });
}
if (scene === 'health') {
  // The real report of HEALTH_VAULT (default: the sample vault), computed before the page is built.
  const report = __HEALTH_REPORT__;
  mount(KnowledgeHealth, { target: root, props: { load: async () => describeHealth(report), onOpen() {} } });
}
`;

const COMMON = `
:root {
  --font-interface: -apple-system, 'Segoe UI', Roboto, 'Inter', sans-serif;
  --font-ui-smaller: 12px; --font-ui-small: 13px; --font-ui-medium: 15px;
  --font-semibold: 600; --line-height-normal: 1.5;
  --size-2-1: 2px; --size-2-2: 4px; --size-2-3: 6px;
  --size-4-1: 4px; --size-4-2: 8px; --size-4-3: 12px; --size-4-4: 16px;
  --radius-s: 4px; --radius-m: 8px; --radius-l: 12px; --border-width: 1px;
  --layer-tooltip: 70; --layer-popover: 30; --cursor: pointer;
}`;
const LIGHT = `
:root {
  --background-primary: #ffffff; --background-secondary: #f6f6f6;
  --background-modifier-border: #e0e0e0; --background-modifier-hover: rgba(0, 0, 0, 0.075);
  --text-normal: #222222; --text-muted: #5c5c5c; --text-faint: #ababab;
  --text-accent: #8a5cf5; --text-on-accent: #ffffff; --text-error: #e93147; --text-warning: #ec7500;
  --interactive-accent: #8a5cf5; --tag-color: #8a5cf5; --color-green: #08b94e;
  --color-orange: #ec7500; --color-red: #e93147; --color-red-rgb: 233, 49, 71;
  --shadow-s: 0 1px 4px rgba(0, 0, 0, 0.15);
}`;
const DARK = `
:root {
  --background-primary: #1e1e1e; --background-secondary: #262626;
  --background-modifier-border: #363636; --background-modifier-hover: rgba(255, 255, 255, 0.075);
  --text-normal: #dadada; --text-muted: #b3b3b3; --text-faint: #666666;
  --text-accent: #a88bfa; --text-on-accent: #ffffff; --text-error: #fb464c; --text-warning: #e9973f;
  --interactive-accent: #8a5cf5; --tag-color: #a88bfa; --color-green: #44cf6e;
  --color-orange: #e9973f; --color-red: #fb464c; --color-red-rgb: 251, 70, 76;
  --shadow-s: 0 1px 6px rgba(0, 0, 0, 0.5);
}`;
const BASE = `
html, body { margin: 0; height: 100%; background: var(--background-primary); }
body { font-family: var(--font-interface); color: var(--text-normal); font-size: 14px; }
button, input, select { font: inherit; font-size: var(--font-ui-small); }
button { padding: 4px 12px; height: 30px; border-radius: 6px; border: 0; color: var(--text-normal);
  background: var(--background-secondary); box-shadow: 0 0 0 1px var(--background-modifier-border); cursor: pointer; }
input, select, textarea { padding: 6px 8px; border-radius: 6px; color: var(--text-normal);
  background: var(--background-primary); border: 1px solid var(--background-modifier-border); }
textarea { font: inherit; }
mark { background: rgba(138, 92, 245, 0.25); color: inherit; }
.workspace-leaf-content { height: 100%; box-sizing: border-box; }
.workspace-leaf-content.modal { padding: 16px; }
`;

const bundled = await build({
  stdin: {
    contents: ENTRY.replace('__HEALTH_REPORT__', JSON.stringify(healthReport)),
    resolveDir: resolve('.'),
    loader: 'ts',
    sourcefile: 'entry.ts',
  },
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
const styles = readdirSync('styles')
  .filter((name) => name.endsWith('.css'))
  .sort()
  .map((name) => readFileSync(join('styles', name), 'utf8'))
  .join('\n');
const page = (theme) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>${COMMON}${theme}${BASE}\n${styles}</style></head>
<body><div class="workspace-leaf-content view-content"></div>
<script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;

mkdirSync(out, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), 'cairn-plugin-shots-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
  ],
  deviceScaleFactor: 2,
});
try {
  for (const [themeName, theme] of [
    ['light', LIGHT],
    ['dark', DARK],
  ]) {
    const html = page(theme);
    for (const [scene, size] of [
      ['related', { width: 340, height: 560 }],
      ['search', { width: 620, height: 440 }],
      ['chat', { width: 400, height: 560 }],
      ['health', { width: 1280, height: 800 }],
    ].filter(([name]) => wanted(name))) {
      const tab = await context.newPage();
      const errors = [];
      tab.on('pageerror', (error) => errors.push(error.message));
      await tab.setViewportSize(size);
      await tab.goto(`data:text/html;base64,${Buffer.from(html).toString('base64')}#${scene}`);
      if (scene === 'search') {
        await tab.fill('.cairn-search-input', 'visa fee');
        await tab.waitForSelector('.cairn-search-result');
        await tab.keyboard.press('ArrowDown');
      }
      if (scene === 'chat') {
        await tab.getByLabel('Message').fill('What did I decide about [[Jap');
        await tab.waitForSelector('.cairn-mention-suggestion');
      }
      if (scene === 'related') await tab.waitForSelector('.cairn-related-item');
      if (scene === 'health') {
        await tab.waitForSelector('.cairn-health-link');
      }
      if (errors.length > 0) throw new Error(`${scene}: ${errors.join('; ')}`);
      const name = scene === 'health' ? `health${healthName}` : scene;
      const file = join(out, `plugin-${name}-${themeName}.png`);
      await tab.screenshot({ path: file });
      console.log(`wrote ${file}`);
      await tab.close();
    }
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
