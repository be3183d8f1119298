import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { PhoneConfigResponse } from '../../shared/protocol/phone';

/** The phone page's build output, beside the CLI bundle (`dist/companion/web/`). */
export function defaultWebRoot(): string {
  return fileURLToPath(new URL('./web/', import.meta.url));
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.png': 'image/png',
};

interface StaticFile {
  readonly body: Buffer;
  readonly contentType: string;
}

/**
 * Serves the phone page (`/`, its scripts, manifest and icons) without the token: a phone must
 * be able to load the page before it can sign in. Only the files the build produced are served,
 * read once at start from a fixed list of folders, so no request path ever reaches the file
 * system. Every file is revalidated on each load (`no-cache`): an updated companion must not
 * leave phones on an old service worker.
 */
export function registerPhonePage(app: FastifyInstance, webRoot: string): { served: number } {
  const files = readWebFiles(webRoot);
  if (!files.has('/index.html')) {
    app.log.warn(
      { webRoot },
      'the phone page is not built (no index.html); run `npm run build` to serve it at /',
    );
    return { served: 0 };
  }
  files.set('/', files.get('/index.html')!);
  // One route per file rather than a wildcard: a wildcard would also match unknown `/api/…`
  // paths and answer them without the token check that turns those into 401s.
  for (const [path, file] of files) {
    app.get(path, { config: { public: true } }, async (_request, reply) =>
      reply
        .header('Content-Type', file.contentType)
        .header('Cache-Control', 'no-cache')
        .send(file.body),
    );
  }
  return { served: files.size - 1 };
}

/**
 * `GET /api/v1/phone/config` (token required, like every API route): the vault's name for
 * `obsidian://` links and the companion's zone. Registered whether or not the page is built, so
 * another phone client can use it too.
 */
export function registerPhoneConfigRoute(app: FastifyInstance, config: PhoneConfigResponse): void {
  app.get(
    '/api/v1/phone/config',
    { schema: { response: { 200: PhoneConfigResponse } } },
    async (): Promise<PhoneConfigResponse> => config,
  );
}

function readWebFiles(webRoot: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const folder of ['', 'icons']) {
    const dir = join(webRoot, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (!contentType) continue;
      const urlPath = folder === '' ? `/${name}` : `/${folder}/${name}`;
      files.set(urlPath, { body: readFileSync(join(dir, name)), contentType });
    }
  }
  return files;
}
