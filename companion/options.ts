/**
 * The command line, in one table: `parseArgs` options, environment variables and `--help`
 * are all derived from it, so a flag cannot exist without its variable and its help line.
 */

export interface OptionSpec {
  /** Long flag name without dashes. */
  readonly name: string;
  readonly env?: string;
  readonly kind: 'string' | 'boolean';
  /** Placeholder shown in help, e.g. `<path>`. */
  readonly value?: string;
  readonly description: string;
  /** How the default is described in help. */
  readonly defaultText?: string;
}

export const OPTIONS = [
  {
    name: 'vault',
    env: 'CAIRN_VAULT',
    kind: 'string',
    value: '<path>',
    description: 'Obsidian vault folder to serve (required)',
  },
  {
    name: 'port',
    env: 'CAIRN_PORT',
    kind: 'string',
    value: '<number>',
    description: 'TCP port to listen on',
    defaultText: '8787',
  },
  {
    name: 'host',
    env: 'CAIRN_HOST',
    kind: 'string',
    value: '<address>',
    description: 'Interface to listen on; 0.0.0.0 for the whole LAN',
    defaultText: '127.0.0.1',
  },
  {
    name: 'data',
    env: 'CAIRN_DATA',
    kind: 'string',
    value: '<path>',
    description: 'Data folder (database, token, push keys); never inside the vault',
    defaultText: '$XDG_DATA_HOME/cairn-companion/<vault>-<hash> (~/.local/share/…)',
  },
  {
    name: 'timezone',
    env: 'CAIRN_TIMEZONE',
    kind: 'string',
    value: '<IANA zone>',
    description: 'Zone for reminders written without one',
    defaultText: "the plugin's setting in the vault, else the system's",
  },
  {
    name: 'tls-cert',
    env: 'CAIRN_TLS_CERT',
    kind: 'string',
    value: '<file>',
    description: 'PEM certificate: serve HTTPS (needs --tls-key too)',
  },
  {
    name: 'tls-key',
    env: 'CAIRN_TLS_KEY',
    kind: 'string',
    value: '<file>',
    description: 'PEM private key for --tls-cert',
  },
  {
    name: 'log-level',
    env: 'CAIRN_LOG_LEVEL',
    kind: 'string',
    value: '<level>',
    description: 'fatal, error, warn, info, debug, trace or silent',
    defaultText: 'info',
  },
  {
    name: 'push-hosts',
    env: 'CAIRN_PUSH_HOSTS',
    kind: 'string',
    value: '<hosts>',
    description: 'Comma-separated push-service hosts subscriptions may use (*.example.com allowed)',
    defaultText: 'any https host',
  },
  {
    name: 'link-hosts',
    env: 'CAIRN_LINK_HOSTS',
    kind: 'string',
    value: '<hosts>',
    description:
      'Comma-separated hosts whose pages saved links may fetch (*.example.org, or * for any public site)',
    defaultText: 'none: offline',
  },
  {
    name: 'push-subject',
    env: 'CAIRN_PUSH_SUBJECT',
    kind: 'string',
    value: '<mailto:|https:>',
    description: 'Contact given to push services in every VAPID token (a public address)',
    defaultText:
      "the push key file's subject, else mailto:cairn-companion@users.noreply.github.com",
  },
  {
    name: 'grace-hours',
    env: 'CAIRN_GRACE_HOURS',
    kind: 'string',
    value: '<hours>',
    description: 'Reminders missed while down fire on start if younger than this',
    defaultText: '24',
  },
  {
    name: 'digest',
    env: 'CAIRN_DIGEST',
    kind: 'string',
    value: '<"mon 08:00"|off>',
    description:
      'Slot the weekly digest task is created with on first start (weekday and time), or off',
    defaultText: 'mon 08:00',
  },
  {
    name: 'trust-proxy',
    env: 'CAIRN_TRUST_PROXY',
    kind: 'string',
    value: '<addresses>',
    description:
      'Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed (reverse proxy)',
    defaultText: 'none',
  },
  {
    name: 'embed-workers',
    env: 'CAIRN_EMBED_WORKERS',
    kind: 'string',
    value: '<count>',
    description: 'Worker threads for the built-in embedding model (~150 MB each while busy)',
    defaultText: 'one per core, at most 2',
  },
  {
    name: 'embed-idle-seconds',
    env: 'CAIRN_EMBED_IDLE_SECONDS',
    kind: 'string',
    value: '<seconds>',
    description: 'Embedding workers exit after this long without work; they restart on demand',
    defaultText: '60',
  },
  {
    name: 'embed-runtime',
    env: 'CAIRN_EMBED_RUNTIME',
    kind: 'string',
    value: '<auto|native|wasm>',
    description:
      'What runs the built-in embedding model: native (onnxruntime, ~3x faster) or wasm; auto uses native when it loads',
    defaultText: 'auto',
  },
  {
    name: 'rotate-token',
    kind: 'boolean',
    description: 'Replace the stored API token with a new one and print it',
  },
  { name: 'help', kind: 'boolean', description: 'Show this help and exit' },
  { name: 'version', kind: 'boolean', description: 'Print the version and exit' },
] as const satisfies readonly OptionSpec[];

export type OptionName = (typeof OPTIONS)[number]['name'];

/** Variables that have no flag: secrets do not belong on a command line (`ps` shows it). */
export const ENV_ONLY = [
  {
    env: 'CAIRN_TOKEN',
    description: 'API token to use instead of the stored one (not written to disk; 22+ characters)',
  },
  {
    env: 'CAIRN_EMBEDDINGS',
    description: 'builtin (USE-lite, no download; default), ollama, or none (keyword-only)',
  },
  {
    env: 'CAIRN_SEARCH_CHATS',
    description: '1: chat transcripts (Cairn/Chats/) are search and answer sources (default 0)',
  },
  {
    env: 'CAIRN_SEARCH_DIGESTS',
    description: '1: weekly digests (Cairn/Digests/) are sources (default 0)',
  },
  { env: 'CAIRN_OLLAMA_URL', description: 'Ollama base URL (default http://127.0.0.1:11434)' },
  {
    env: 'CAIRN_OLLAMA_EMBED_MODEL',
    description: 'Ollama embedding model (default nomic-embed-text)',
  },
  {
    env: 'CAIRN_MCP_TOKEN',
    description:
      "mcp only: the token the stdio session uses (e.g. a read-only one); default the owner's",
  },
  {
    env: 'CAIRN_OLLAMA_VISION_MODEL',
    description: 'Ollama vision model for images sent to /v1/chat/completions (e.g. llava)',
  },
  {
    env: 'CAIRN_MEMORY_MODEL',
    description:
      'OpenAI-compatible model for memory categories and link summaries (with CAIRN_MEMORY_MODEL_URL, …/v1; CAIRN_MEMORY_MODEL_API_KEY)',
  },
] as const;

export function usage(programName = 'cairn-companion'): string {
  const flagColumn = (spec: OptionSpec) => `--${spec.name}${spec.value ? ` ${spec.value}` : ''}`;
  const width = Math.max(...OPTIONS.map((spec) => flagColumn(spec).length)) + 2;
  const lines = [
    `Usage: ${programName} --vault <path> [options]`,
    `       ${programName} token create --name NAME --scope read[,write][,admin] --vault <path>`,
    `       ${programName} token list | token revoke NAME --vault <path>`,
    `       ${programName} pair --name DEVICE [--url https://…] --vault <path>   (Cairn Sync)`,
    `       ${programName} mcp --vault <path>   (MCP over stdio, for desktop assistants)`,
    `       ${programName} search|ask|remind|note|reminders|remember|status … --vault <path>`,
    `       ${programName} completion bash|zsh|fish   (each subcommand has --help; docs/cli.md)`,
    '',
    'Serves an Obsidian vault to Cairn: re-indexes it, schedules reminders, pushes them to',
    'phones, and answers the plugin and the phone page over HTTP.',
    '',
    'Options (each flag can also be set by the environment variable shown; flags win):',
  ];
  for (const spec of OPTIONS as readonly OptionSpec[]) {
    lines.push(`  ${flagColumn(spec).padEnd(width)}${spec.description}`);
    const extras = [
      spec.env ? `env ${spec.env}` : null,
      spec.defaultText ? `default: ${spec.defaultText}` : null,
    ].filter((part) => part !== null);
    if (extras.length > 0) lines.push(`  ${''.padEnd(width)}(${extras.join('; ')})`);
  }
  lines.push('', 'Environment only:');
  for (const variable of ENV_ONLY)
    lines.push(`  ${variable.env.padEnd(width)}${variable.description}`);
  lines.push(
    '',
    "Settings also come from the plugin's .obsidian/plugins/cairn/data.json in the vault",
    '(timezone, folders). Precedence: flag > environment > data.json > default.',
    '',
    'Exit codes: 0 stopped cleanly, 1 runtime failure, 2 usage or configuration error.',
  );
  return `${lines.join('\n')}\n`;
}
