import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/*
 * Schema compilers that compile a route's validator or serializer when the route first needs
 * it instead of when the app starts. Fastify compiles every route's schemas at `ready`: about
 * a second of CPU for the companion's ~150 routes, which the server pays once, but which the
 * command line (`cairn-companion search …` without a running companion builds the app in its
 * own process, commands/local-connection.ts) paid on every call to answer one or two requests.
 *
 * What a request sees is the same: the function compiled is the one the eager compiler would
 * have returned, and the wrapper forwards what Fastify reads off it (`errors` after a failed
 * check, `schemaEnv` to decide whether Ajv may replace the root value). A schema that does not
 * compile fails its route's first request instead of the start, so the server keeps compiling
 * at start (where a broken schema should stop it) and only short-lived apps use these.
 */

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
/** Fastify's `compilersFactory.buildValidator` / `buildSerializer` (Ajv mode only). */
type BuildCompiler = (externalSchemas: unknown, options?: unknown) => (route: unknown) => unknown;

const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const SerializerSelector = requireFromFastify('@fastify/fast-json-stringify-compiler') as {
  SerializerSelector: () => BuildCompiler;
};

/** Fastify's own serializer factory (fast-json-stringify), as it builds it without options. */
const defaultSerializer = SerializerSelector.SerializerSelector();

type Compiled = (...args: unknown[]) => unknown;

/** `compile()` on the first call or property read, then the compiled function's answers. */
function onFirstUse(compile: () => Compiled): Compiled {
  let compiled: Compiled | undefined;
  const get = () => (compiled ??= compile());
  const wrapper = (...args: unknown[]) => get()(...args);
  Object.defineProperties(wrapper, {
    errors: { get: () => (get() as { errors?: unknown }).errors },
    schemaEnv: { get: () => (get() as { schemaEnv?: unknown }).schemaEnv },
  });
  return wrapper;
}

function compileOnFirstUse(build: BuildCompiler): BuildCompiler {
  return (externalSchemas, options) => {
    const compilerFor = build(externalSchemas, options);
    return (route) => onFirstUse(() => compilerFor(route) as Compiled);
  };
}

/**
 * `compilersFactory` for an app that answers a few requests and stops: `buildValidator` (the
 * app's own, e.g. partAwareValidator()) and Fastify's default serializer, each compiling a
 * schema on its route's first use.
 */
export function firstUseCompilers(
  buildValidator: NonNullable<CompilersFactory['buildValidator']>,
): CompilersFactory {
  return {
    buildValidator: compileOnFirstUse(
      buildValidator as unknown as BuildCompiler,
    ) as unknown as CompilersFactory['buildValidator'],
    buildSerializer: compileOnFirstUse(
      defaultSerializer,
    ) as unknown as CompilersFactory['buildSerializer'],
  };
}
