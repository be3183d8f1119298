/* global document */
// Takes the week view's screenshots for docs/memory-digest-calendar.md: the real WeekView.svelte
// and styles/50-week.css, mounted in headless Chromium with a week built by the shared calendar
// builder from the sample vault's reminders, under Obsidian-like CSS variables, light and dark.
//   node scripts/screenshot-week.mjs [out-dir]      (default docs/screenshots)
// Uses Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH), never a downloaded browser.
import esbuild from 'esbuild';
import sveltePlugin from 'esbuild-svelte';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const outDir = resolve(process.argv[2] ?? join(repo, 'docs/screenshots'));
mkdirSync(outDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'cairn-week-shot-'));

const ENTRY = `
import { mount } from 'svelte';
import { readFileReminders } from './plugin/reminders/vault-reminder-entries';
import { localWeek, noteEvents } from './plugin/week/week-data';
import { parseIsoWeek } from './shared/calendar';
import WeekView from './plugin/week/WeekView.svelte';
const files = window.SAMPLE_FILES;
const entries = Object.entries(files).flatMap(([path, text]) => readFileReminders(path, text, { zone: 'Europe/Berlin' }).entries);
const events = noteEvents([
  { path: 'Calendar/Dentist.md', frontMatter: { title: 'Dentist', date: '2026-11-24', startTime: '14:00', endTime: '15:00' } },
  { path: 'Calendar/Lisbon.md', frontMatter: { title: 'Lisbon trip', date: '2026-11-28', allDay: true } },
  { path: 'Calendar/Gym.md', frontMatter: { title: 'Gym', type: 'recurring', daysOfWeek: ['T', 'R'], startTime: '18:30', endTime: '19:30' } },
], 'Europe/Berlin');
const week = localWeek({ week: parseIsoWeek('2026-W48'), zone: 'Europe/Berlin', entries, events, vaultName: 'vault' });
week.days[0].items = week.days[0].items.map((item) => item.id === 'r-7k2p' ? { ...item, status: 'done' } : item);
week.days[1].items.unshift({ kind: 'reminder', id: 'r-demo', title: 'Send the invoice', start: '2026-11-24T08:00:00+01:00', end: null, all_day: false, path: 'Work.md', line: 3, status: 'missed', recurring: false });
mount(WeekView, {
  target: document.getElementById('root'),
  props: {
    load: async () => ({ week, source: 'From the companion' }),
    today: () => '2026-11-25',
    onOpen: () => {}, onDone: async () => {}, onSnooze: async () => {}, refreshMs: 0,
  },
});
`;

const THEMES = {
  light: {
    '--background-primary': '#ffffff',
    '--background-secondary': '#f6f6f6',
    '--background-modifier-border': '#e0e0e0',
    '--text-normal': '#222222',
    '--text-muted': '#6b6b6b',
    '--text-faint': '#ababab',
    '--text-accent': '#7b6cd9',
    '--text-error': '#e93147',
    '--interactive-accent': '#7b6cd9',
    '--interactive-normal': '#f2f2f2',
  },
  dark: {
    '--background-primary': '#1e1e1e',
    '--background-secondary': '#262626',
    '--background-modifier-border': '#363636',
    '--text-normal': '#dadada',
    '--text-muted': '#999999',
    '--text-faint': '#666666',
    '--text-accent': '#a68af9',
    '--text-error': '#fb464c',
    '--interactive-accent': '#8a5cf5',
    '--interactive-normal': '#363636',
  },
};
const COMMON = {
  '--size-2-1': '2px',
  '--size-4-1': '4px',
  '--size-4-2': '8px',
  '--size-4-3': '12px',
  '--border-width': '1px',
  '--radius-m': '8px',
  '--font-semibold': '600',
  '--font-ui-small': '13px',
  '--font-ui-smaller': '12px',
  '--font-ui-medium': '15px',
};

try {
  const built = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: repo, loader: 'ts' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    mainFields: ['svelte', 'browser', 'module', 'main'],
    conditions: ['svelte', 'browser'],
    write: false,
    outdir: work,
    plugins: [sveltePlugin({ compilerOptions: { css: 'injected' } })],
    logLevel: 'silent',
  });
  const script = built.outputFiles.find((file) => file.path.endsWith('.js')).text;
  const css = readFileSync(join(repo, 'styles/50-week.css'), 'utf8');
  const sample = join(repo, 'companion/sample-vault');
  const files = Object.fromEntries(
    [
      'Journal/2026-11-22.md',
      'Garden.md',
      'Projects/Companion setup.md',
      'Cairn/Reminders/call-the-bank.md',
      'Travel/Lisbon trip.md',
    ].map((path) => [path, readFileSync(join(sample, path), 'utf8')]),
  );
  const context = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 420, height: 900 },
    deviceScaleFactor: 2,
  });
  try {
    for (const [name, theme] of Object.entries(THEMES)) {
      const vars = Object.entries({ ...COMMON, ...theme })
        .map(([key, value]) => `${key}: ${value};`)
        .join(' ');
      const page = await context.newPage();
      await page.setContent(`<!doctype html><html><head><style>
        body { margin: 0; background: var(--background-primary); font-family: -apple-system, "Segoe UI", Inter, sans-serif; ${vars} }
        button { font: inherit; color: var(--text-normal); background: var(--interactive-normal); border: 1px solid var(--background-modifier-border); border-radius: 4px; padding: 2px 8px; }
        ${css}</style></head><body><div id="root"></div>
        <script>window.SAMPLE_FILES = ${JSON.stringify(files).replace(/</g, '\\u003c')};</script></body></html>`);
      await page.addScriptTag({ content: script });
      await page.waitForFunction(() => document.querySelectorAll('.cairn-week-day').length === 7);
      const out = join(outDir, `week-view-${name}.png`);
      await page.locator('.cairn-week').screenshot({ path: out });
      console.log(`wrote ${out}`);
      await page.close();
    }
  } finally {
    await context.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
