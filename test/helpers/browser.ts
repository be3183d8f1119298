import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Debian's Chromium; never a downloaded browser (the machine has no internet). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether browser tests can run. Where Chromium is missing they skip with a loud warning,
 * except when CAIRN_REQUIRE_BROWSER=1 (set by .ci/run), where a missing browser is a failure.
 */
export function browserAvailability(): { available: true } | { available: false; reason: string } {
  if (existsSync(chromiumPath)) return { available: true };
  const reason = `Chromium not found at ${chromiumPath}: install it with 'apt-get install -y chromium'`;
  if (process.env.CAIRN_REQUIRE_BROWSER === '1') {
    throw new Error(`${reason} (CAIRN_REQUIRE_BROWSER=1, so browser tests may not skip)`);
  }
  console.warn(`\n!!! SKIPPING BROWSER TESTS: ${reason} !!!\n`);
  return { available: false, reason };
}

/** Flags that keep headless Chromium from reaching for the network this machine does not have. */
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchedBrowser {
  /** A fresh profile each launch, so service workers and storage never leak between tests. */
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(extraArgs: string[] = []): Promise<LaunchedBrowser> {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'cairn-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: [...chromiumArgs, ...extraArgs],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
