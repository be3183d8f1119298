import { TFile, normalizePath } from 'obsidian';
import type { Vault } from 'obsidian';

/**
 * Holds note creation until the first pull of a session has landed (DESIGN §9): Obsidian's daily
 * note and template plugins create today's note on open, and a note created before the pull
 * would stand beside (and conflict with) the one another device already wrote. While held,
 * `vault.create` of a Markdown file waits for the pull (at most `maxWaitMs`, so an unreachable
 * companion never blocks the user); if the pull brought a file to that path, the caller gets that
 * file instead of a new one, which is what the daily note then opens. Returns the release, which
 * puts `vault.create` back (also when the plugin unloads).
 */
export function holdNoteCreation(
  vault: Vault,
  firstPull: Promise<void>,
  maxWaitMs: number,
  timers: { setTimeout(callback: () => void, ms: number): number; clearTimeout(id: number): void },
): () => void {
  // Unbound on purpose: put back as it was, and called with `vault` as its `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored as the same function
  const original = vault.create;
  let timer = 0;
  const landed = new Promise<void>((resolve) => {
    timer = timers.setTimeout(resolve, maxWaitMs);
    void firstPull.then(resolve);
  });
  const held: Vault['create'] = async (path, data, options) => {
    if (!normalizePath(path).endsWith('.md')) return original.call(vault, path, data, options);
    await landed;
    const existing = vault.getAbstractFileByPath(normalizePath(path));
    if (existing instanceof TFile) return existing;
    return original.call(vault, path, data, options);
  };
  vault.create = held;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    timers.clearTimeout(timer);
    if (vault.create === held) vault.create = original;
  };
  void landed.then(release);
  return release;
}
