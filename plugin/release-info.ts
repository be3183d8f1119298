/**
 * Where the project lives and publishes its releases. The plugin downloads the built-in model
 * from the release assets of its own version by default (docs/plugin.md, "Network use").
 *
 * Forks, and whoever publishes the first release, must confirm this URL (and manifest.json's
 * `authorUrl`, which holds the same): a wrong one makes the default download fail with a 404
 * naming the file, never fetch something else, because every file's SHA-256 is checked.
 */
export const PROJECT_URL = 'https://github.com/cairn-notes/cairn';

/** The folder a release's assets are downloaded from: `<PROJECT_URL>/releases/download/<version>/`. */
export function releaseAssetsUrl(version: string): string {
  return `${PROJECT_URL}/releases/download/${encodeURIComponent(version)}/`;
}
