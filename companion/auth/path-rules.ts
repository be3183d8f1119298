import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * Per-token path rules (docs/clients.md "Path rules"): a token made with `--paths Work/` sees
 * and writes only notes under `Work/`. The rules are stored with the token (migration 015) and
 * bound to the request once, by the auth hook (require-token.ts). Two places read them, one per
 * direction: search (HybridSearch adds them to every query's filters, so search, answers,
 * citations and the chat's and MCP's search tools see only those folders) and the vault's path
 * check (vault/paths.ts `resolveVaultPath`, which every read_note and every write goes through).
 */

/** Vault-relative folders without slashes at either end; empty = the whole vault. */
export type PathRules = readonly string[];

export class PathRuleError extends Error {
  override name = 'PathRuleError';
  readonly code = 'VALIDATION_ERROR';
}

/** At most this many folders per token; more is a sign of a mistaken list. */
const MAX_RULES = 32;

/**
 * Parses `Work/,Projects/Cairn` into `['Work', 'Projects/Cairn']`; throws naming the bad part
 * (`..`, a hidden segment, backslashes, an absolute path, an empty list).
 */
export function parsePathRules(text: string | readonly string[]): string[] {
  const parts = (typeof text === 'string' ? text.split(',') : [...text])
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw new PathRuleError('no folder given; e.g. --paths Work/');
  if (parts.length > MAX_RULES)
    throw new PathRuleError(`at most ${MAX_RULES} folders (got ${parts.length})`);
  const folders: string[] = [];
  for (const part of parts) {
    const folder = part.normalize('NFC').replace(/\/+$/, '');
    const segments = folder.split('/');
    const problem = part.startsWith('/')
      ? 'is absolute; give a folder inside the vault, e.g. Work/'
      : part.includes('\\')
        ? 'uses "\\"; separate folders with "/"'
        : segments.some((segment) => segment === '' || segment === '.' || segment === '..')
          ? 'has an empty, "." or ".." segment'
          : segments.some((segment) => segment.startsWith('.'))
            ? 'names a hidden folder'
            : undefined;
    if (problem !== undefined) throw new PathRuleError(`path rule "${part}" ${problem}`);
    if (!folders.includes(folder)) folders.push(folder);
  }
  return folders;
}

/** Whether `path` (vault-relative, `/`-separated) is one of `rules`' folders or lies inside one. */
export function pathAllowed(rules: PathRules | undefined, path: string): boolean {
  if (rules === undefined || rules.length === 0) return true;
  const normalised = path.normalize('NFC').replace(/^\/+/, '');
  return rules.some((folder) => normalised === folder || normalised.startsWith(`${folder}/`));
}

/** How the rules read in messages: `Work/, Projects/Cairn/`. */
export function describePathRules(rules: PathRules): string {
  return rules.map((folder) => `${folder}/`).join(', ');
}

const requestRules = new AsyncLocalStorage<PathRules>();

/** Runs `work` with `rules` as the path rules of everything it calls (the auth hook's binding). */
export function withPathRules<T>(rules: PathRules, work: () => T): T {
  return requestRules.run(rules, work);
}

/** The path rules of the request being served; undefined = the whole vault. */
export function currentPathRules(): PathRules | undefined {
  const rules = requestRules.getStore();
  return rules === undefined || rules.length === 0 ? undefined : rules;
}
