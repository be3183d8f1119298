/** Dependency direction (DEVELOPERS.md): plugin → shared ← companion, no cycles. */

/** The companion's feature folders; everything else under companion/ is infrastructure or the root. */
const COMPANION_FEATURES =
  'reminders|search|notes|clients|chat|memory|digest|calendar|sync|tasks|tools';

module.exports = {
  forbidden: [
    {
      name: 'companion-infrastructure-below-features',
      comment:
        'Shared infrastructure (vault, db, http, auth, audit, push, …) sits below the features and the composition root, and never reaches up into them (companion/README.md, docs/contributing.md).',
      severity: 'error',
      from: {
        path: '^companion/(vault|db|http|auth|audit|metrics|idempotency|embeddings|pdf|push|status)/|^companion/(logging|version)\\.ts$',
      },
      to: {
        path: [
          `^companion/(${COMPANION_FEATURES})/`,
          '^companion/(commands)/',
          '^companion/(app|server|cli|config|options|idle-gc)\\.ts$',
        ],
      },
    },
    {
      name: 'companion-features-below-the-root',
      comment:
        'Features never import the composition root (app.ts, server.ts, cli.ts, config, commands).',
      severity: 'error',
      from: { path: `^companion/(${COMPANION_FEATURES})/` },
      to: {
        path: [
          '^companion/(commands)/',
          '^companion/(app|server|cli|config|options|idle-gc)\\.ts$',
        ],
      },
    },
    {
      name: 'companion-feature-through-its-index',
      comment:
        "A companion feature reaches another only through that feature's index.ts, its public surface.",
      severity: 'error',
      from: { path: `^companion/(${COMPANION_FEATURES})/` },
      to: {
        path: `^companion/(${COMPANION_FEATURES})/`,
        pathNot: ['^companion/$1/', '^companion/[^/]+/index\\.ts$'],
      },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'shared-is-pure',
      comment:
        'shared/ imports nothing from plugin/, companion/, obsidian, Node core, servers or databases.',
      severity: 'error',
      from: { path: '^shared/' },
      to: {
        path: [
          '^plugin/',
          '^companion/',
          '^obsidian$',
          'node_modules/(obsidian|fastify|@fastify|better-sqlite3|sqlite-vec)/',
        ],
      },
    },
    {
      name: 'shared-no-node-core',
      severity: 'error',
      from: { path: '^shared/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'plugin-not-companion',
      severity: 'error',
      from: { path: '^plugin/' },
      to: { path: ['^companion/', 'node_modules/(better-sqlite3|sqlite-vec|fastify)/'] },
    },
    {
      name: 'plugin-no-node-core',
      severity: 'error',
      from: { path: '^plugin/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'companion-not-plugin',
      severity: 'error',
      from: { path: '^companion/' },
      to: { path: ['^plugin/', '^obsidian$', 'node_modules/obsidian/'] },
    },
    {
      name: 'obsidian-only-in-adapters',
      comment:
        "Runtime obsidian imports live in each feature's obsidian/ subfolder (plugin/<feature>/obsidian/) and the composition root; domain code gets narrow interfaces.",
      severity: 'error',
      from: { path: '^plugin/', pathNot: ['^plugin/[^/]+/obsidian/', '^plugin/main\\.ts$'] },
      to: { path: ['^obsidian$', 'node_modules/obsidian/'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.svelte', '.json'],
    },
    exclude: { path: ['node_modules', 'dist'] },
  },
};
