// Lint layers: everything gets typescript-eslint's recommended rules; the plugin
// additionally gets Obsidian's review rules (type-checked). Boundaries between
// shared/, plugin/ and companion/ are enforced here and, for cycles, by
// dependency-cruiser (.dependency-cruiser.cjs).
import js from '@eslint/js';
import obsidianmd from 'eslint-plugin-obsidianmd';
import { DEFAULT_ACRONYMS } from 'eslint-plugin-obsidianmd/dist/lib/rules/ui/acronyms.js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'os',
  'crypto',
  'http',
  'https',
  'url',
  'child_process',
  'worker_threads',
  'stream',
];

const pluginForbidden = [
  {
    group: ['**/companion/**', '../companion*'],
    message: 'plugin/ talks to the companion over HTTP only.',
  },
  {
    group: ['better-sqlite3', 'sqlite-vec', 'fastify', ...nodeBuiltins],
    message: 'the plugin runs on mobile: no Node or server modules.',
  },
];

/*
 * Regex lookbehind is a SyntaxError on iOS before 16.4: one in code that reaches main.js stops
 * the plugin from loading on those phones (the phone page is served to the same devices).
 */
const noLookbehind = [
  'Literal[regex.pattern=/\\(\\?<[=!]/]',
  'TemplateElement[value.raw=/\\(\\?<[=!]/]',
  'Literal[value=/\\(\\?<[=!]/]',
].map((selector) => ({
  selector,
  message: 'No regex lookbehind in code that runs on phones: older iOS cannot parse it.',
}));

export default defineConfig([
  {
    ignores: ['node_modules/', 'dist/', 'main.js', 'styles.css', 'coverage/', 'test-output/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Obsidian's plugin review rules, type-checked, for the plugin only.
  ...obsidianmd.configs.recommended.map((config) => ({
    ...config,
    files: config.files ?? ['plugin/**/*.ts'],
    ignores: [
      ...(config.ignores ?? []),
      'shared/**',
      'companion/**',
      'test/**',
      'scripts/**',
      'types/**',
      '*.mjs',
      '*.mts',
      '*.cjs',
      'package.json',
      '**/*.json',
    ],
  })),
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'obsidian',
                'fastify',
                'fastify/*',
                '@fastify/*',
                'better-sqlite3',
                'sqlite-vec',
                ...nodeBuiltins,
              ],
              message: 'shared/ is pure TypeScript: no Obsidian, Node, server or database imports.',
            },
            {
              group: ['**/plugin/**', '**/companion/**', '../plugin*', '../companion*'],
              message: 'shared/ must not import plugin/ or companion/.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        'window',
        'document',
        'process',
        'setTimeout',
        'setInterval',
        'localStorage',
        'fetch',
      ],
      'no-restricted-syntax': [
        'error',
        ...noLookbehind,
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Time comes from an injected Clock, not new Date().',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Time comes from an injected Clock, not Date.now().',
        },
      ],
    },
  },
  {
    files: ['plugin/**/*.ts', 'plugin/**/*.svelte'],
    ignores: ['plugin/*/obsidian/**', 'plugin/main.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...pluginForbidden,
            {
              group: ['obsidian'],
              allowTypeImports: true,
              message:
                "Runtime obsidian imports live in a feature's obsidian/ subfolder (plugin/<feature>/obsidian/, the adapter layer) and plugin/main.ts; domain code and components take narrow interfaces.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['plugin/**/*.ts', 'plugin/**/*.svelte', 'companion/web/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...noLookbehind] },
  },
  {
    // "QR code" is how people write it; the rule's own list lacks it (options replace the list).
    files: ['plugin/**/*.ts'],
    rules: {
      'obsidianmd/ui/sentence-case': ['warn', { acronyms: [...DEFAULT_ACRONYMS, 'QR'] }],
    },
  },
  {
    files: ['plugin/*/obsidian/**/*.ts', 'plugin/main.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: pluginForbidden }] },
  },
  {
    files: ['companion/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['obsidian', '**/plugin/**', '../plugin*'],
              message: 'companion/ never imports the plugin or obsidian.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['companion/web/**/*.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.serviceworker } },
  },
  // The type-checked rules see plugin/tsconfig.json (the root options, the plugin's files and
  // what they import): the project service takes the nearest tsconfig, and the root one would
  // make it build a program of the companion, the tests and their types too (about 7 CPU-s).
  {
    files: ['plugin/**/*.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  ...svelte.configs['flat/recommended'].map((config) => ({
    ...config,
    files: config.files ?? ['**/*.svelte'],
  })),
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
  // Obsidian's review rules for the plugin's Svelte components too (the reviewers read them
  // as part of main.js), type-checked through the Svelte parser's TypeScript parser.
  {
    files: ['plugin/**/*.svelte'],
    plugins: { obsidianmd },
    languageOptions: {
      parserOptions: {
        parser: tseslint.parser,
        projectService: true,
        extraFileExtensions: ['.svelte'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: obsidianReviewRules(),
  },
]);

/** The obsidianmd rules of the recommended set (its TypeScript block), with their settings. */
function obsidianReviewRules() {
  const rules = {};
  for (const config of obsidianmd.configs.recommended) {
    for (const [name, setting] of Object.entries(config.rules ?? {})) {
      if (name.startsWith('obsidianmd/')) rules[name] = setting;
    }
  }
  rules['obsidianmd/ui/sentence-case'] = ['warn', { acronyms: [...DEFAULT_ACRONYMS, 'QR'] }];
  return rules;
}
