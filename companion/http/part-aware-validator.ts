import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/*
 * Request validation that coerces only where text is all there is. Query strings, path params
 * and headers arrive as strings, so scalars are coerced (`?limit=10` → 10, `?tag=a` → ['a']).
 * A JSON body already has types: coercing it would let `{"message": 42}` through as "42" or
 * `{"summarize": "yes"}` fail in odd ways, so a body is checked as sent and a wrong type is a
 * 400 naming the field.
 *
 * Both validators come from Fastify's own compiler (@fastify/ajv-compiler, resolved from
 * Fastify's install so the same version and Ajv options apply), with the app's Ajv options;
 * only `coerceTypes` differs for bodies.
 */

/** Fastify's type for `schemaController.compilersFactory.buildValidator`. */
type FastifyBuildValidator = NonNullable<
  NonNullable<
    NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
  >['buildValidator']
>;

interface RouteSchema {
  schema: unknown;
  httpPart?: string;
}
type CompileValidator = (route: RouteSchema) => unknown;
interface AjvCompilerOptions {
  customOptions?: Record<string, unknown>;
}
type BuildValidator = (externalSchemas: unknown, options?: AjvCompilerOptions) => CompileValidator;

const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const AjvCompiler = requireFromFastify('@fastify/ajv-compiler') as () => BuildValidator;

/**
 * One compiler pool per process, as Fastify keeps one per app: its Ajv instances are keyed by
 * the external schemas and the Ajv options, and Ajv caches what it compiled by schema object,
 * so a second app built in the same process (the tests build hundreds; `mcp` may start a local
 * server) reuses the validators instead of compiling every route's schemas again.
 */
const compilerPool = AjvCompiler();

/** A `schemaController.compilersFactory.buildValidator` for Fastify. */
export function partAwareValidator(): FastifyBuildValidator {
  const factory = compilerPool;
  const build: BuildValidator = (externalSchemas, options) => {
    const coercing = factory(externalSchemas, options);
    const strict = factory(externalSchemas, {
      ...options,
      customOptions: { ...options?.customOptions, coerceTypes: false },
    });
    return (route) => (route.httpPart === 'body' ? strict(route) : coercing(route));
  };
  // Fastify types the factory as Ajv-or-JTD overloads; the app runs Ajv (JSON Schema) mode only.
  return build as unknown as FastifyBuildValidator;
}
