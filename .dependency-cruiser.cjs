/** Dependency direction (DEVELOPERS.md): plugin → shared ← companion, no cycles. */
module.exports = {
  forbidden: [
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
