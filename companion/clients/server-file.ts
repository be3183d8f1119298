import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `server.json` in the data folder: where the companion running on this data folder listens,
 * so `cairn-companion mcp` (started by a desktop assistant) can talk to it instead of opening
 * the database a second time. Written after listening, removed on a clean stop; a stale file
 * after a crash is harmless because readers check `/health` before trusting it.
 */
export const SERVER_FILE = 'server.json';

export interface ServerFile {
  url: string;
  pid: number;
}

export function writeServerFile(dataDir: string, info: ServerFile): void {
  writeFileSync(join(dataDir, SERVER_FILE), `${JSON.stringify(info)}\n`, { mode: 0o600 });
}

/** Removes the file if it still names this process (another server may have replaced it). */
export function removeServerFile(dataDir: string, pid: number): void {
  const current = readServerFile(dataDir);
  if (current?.pid === pid) rmSync(join(dataDir, SERVER_FILE), { force: true });
}

export function readServerFile(dataDir: string): ServerFile | undefined {
  try {
    const parsed = JSON.parse(
      readFileSync(join(dataDir, SERVER_FILE), 'utf8'),
    ) as Partial<ServerFile>;
    if (typeof parsed.url === 'string' && typeof parsed.pid === 'number') {
      return { url: parsed.url, pid: parsed.pid };
    }
  } catch {
    // Missing or unreadable: no running server announced.
  }
  return undefined;
}

/** How long `/health` may take before the announced server counts as gone. */
const HEALTH_TIMEOUT_MS = 1_500;

/** The URL of the companion announced in the data folder, if it answers `/health`. */
export async function runningServer(dataDir: string): Promise<string | undefined> {
  const announced = readServerFile(dataDir);
  if (announced === undefined) return undefined;
  try {
    const response = await fetch(new URL('/health', announced.url), {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    return response.ok ? announced.url : undefined;
  } catch {
    return undefined; // stale file from a crash, or another process on that port
  }
}
