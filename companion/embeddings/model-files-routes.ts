import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { USE_LITE_FILES, useLiteFile } from '../../shared/embeddings/use-lite-files';
import { ApiHttpError } from '../http/api-error';

/*
 * `GET /api/v1/models/use-lite/files/:name`: the built-in model's files, so the plugin can fill
 * its model folder from the paired companion (28 MB cannot ride inside main.js). Only the names
 * in shared/embeddings/use-lite-files.json are served, from the same installed packages the
 * companion runs the model from (Node's module resolution, so any install layout works); any
 * other name is a 404, so no path ever reaches the file system from the URL. Authentication is
 * the app's job (every /api/ route needs the token).
 */

const Params = Type.Object(
  // The allowlist is the real check; the schema keeps junk (slashes, dots-only) out early.
  { name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }) },
  { additionalProperties: false },
);
type Params = Static<typeof Params>;

const resolveFromHere = createRequire(import.meta.url);

export function registerModelFileRoutes(app: FastifyInstance): void {
  app.get<{ Params: Params }>(
    '/api/v1/models/use-lite/files/:name',
    { schema: { params: Params } },
    async (request, reply) => {
      const file = useLiteFile(request.params.name);
      if (!file) {
        throw new ApiHttpError(
          'NOT_FOUND',
          `"${request.params.name}" is not a file of the built-in model; the files are ${USE_LITE_FILES.map((f) => f.name).join(', ')}`,
          'name',
        );
      }
      let path: string;
      try {
        path = resolveFromHere.resolve(`${file.package}/dist/${file.name}`);
      } catch {
        throw new ApiHttpError(
          'UNAVAILABLE',
          `${file.package} is not installed next to the companion, so ${file.name} cannot be served`,
        );
      }
      const { size } = await stat(path);
      if (size !== file.bytes) {
        // A different package version: its files would not match what the plugin checks.
        throw new ApiHttpError(
          'UNAVAILABLE',
          `${file.name} here is ${size} bytes, not the ${file.bytes} of the model the plugin expects`,
        );
      }
      return reply
        .header('Content-Type', 'application/octet-stream')
        .header('Content-Length', String(size))
        .header('Cache-Control', 'no-store')
        .send(createReadStream(path));
    },
  );
}
