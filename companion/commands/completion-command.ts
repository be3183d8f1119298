import { OPTIONS } from '../options';
import { VAULT_COMMANDS } from './vault-commands';

export const COMPLETION_USAGE = `Usage: cairn-companion completion bash|zsh|fish

Prints a shell completion script for cairn-companion. Install it with:
  bash  source <(cairn-companion completion bash)            (e.g. in ~/.bashrc)
  zsh   cairn-companion completion zsh > "\${fpath[1]}/_cairn-companion"
  fish  cairn-companion completion fish > ~/.config/fish/completions/cairn-companion.fish
`;

/** Every subcommand, the vault commands from their table. */
const SUBCOMMANDS = [
  ...Object.keys(VAULT_COMMANDS),
  'token',
  'mcp',
  'calendar-url',
  'completion',
] as const;

/** Flags that every vault command takes from the server's table. */
const SHARED_FLAGS = ['vault', 'data', 'timezone', 'log-level', 'help'] as const;

function flagsOf(command: string): { name: string; choices?: readonly string[]; value: boolean }[] {
  const spec = (VAULT_COMMANDS as Record<string, (typeof VAULT_COMMANDS)['search'] | undefined>)[
    command
  ];
  const shared = SHARED_FLAGS.map((name) => ({
    name,
    value: OPTIONS.find((option) => option.name === name)?.kind === 'string',
  }));
  if (spec === undefined) {
    return OPTIONS.map((option) => ({ name: option.name, value: option.kind === 'string' }));
  }
  return [
    ...spec.flags.map((flag) => ({
      name: flag.name,
      value: flag.kind === 'string',
      ...(flag.choices ? { choices: flag.choices } : {}),
    })),
    ...shared,
  ];
}

const PATH_FLAGS = new Set(['vault', 'data', 'tls-cert', 'tls-key']);

/** Returns the exit code; the script goes to `out`. */
export function runCompletion(
  argv: readonly string[],
  out: (text: string) => void,
  err: (text: string) => void,
): number {
  const shell = argv[0];
  if (shell === '--help' || shell === '-h') {
    out(COMPLETION_USAGE);
    return 0;
  }
  if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish') {
    err(
      `cairn-companion completion: ${shell === undefined ? 'missing shell' : `unknown shell "${shell}"`}: bash, zsh or fish\n${COMPLETION_USAGE}`,
    );
    return 2;
  }
  out(shell === 'bash' ? bash() : shell === 'zsh' ? zsh() : fish());
  return 0;
}

const ALL_COMMANDS = [...SUBCOMMANDS, ''];

function bash(): string {
  const cases = ALL_COMMANDS.map((command) => {
    const flags = flagsOf(command);
    const words = flags.map((flag) => `--${flag.name}`).join(' ');
    const valueCases = flags
      .filter((flag) => flag.choices || PATH_FLAGS.has(flag.name))
      .map((flag) =>
        flag.choices
          ? `        --${flag.name}) COMPREPLY=($(compgen -W "${flag.choices.join(' ')}" -- "$cur")); return ;;`
          : `        --${flag.name}) COMPREPLY=($(compgen -d -- "$cur")); return ;;`,
      );
    const extra =
      command === 'completion'
        ? '      COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;'
        : command === 'token'
          ? '      COMPREPLY=($(compgen -W "create list revoke --name --scope --vault --data" -- "$cur")); return ;;'
          : `      case "$prev" in\n${valueCases.join('\n')}\n      esac\n      COMPREPLY=($(compgen -W "${words}" -- "$cur")); return ;;`;
    return `    ${command === '' ? '""' : command})\n${extra}`;
  });
  return `# bash completion for cairn-companion (cairn-companion completion bash)
_cairn_companion() {
  local cur prev cmd i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  if [[ -z "$cmd" && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "${SUBCOMMANDS.join(' ')}" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases.join('\n')}
  esac
}
complete -o default -F _cairn_companion cairn-companion
`;
}

function zsh(): string {
  const describe = (command: string) =>
    (VAULT_COMMANDS as Record<string, { summary: string } | undefined>)[command]?.summary ??
    {
      token: 'Create, list or revoke API tokens',
      mcp: 'MCP over stdio, for desktop assistants',
      'calendar-url': 'Print the calendar feed URL',
      completion: 'Print a shell completion script',
    }[command] ??
    '';
  const commands = SUBCOMMANDS.map(
    (command) =>
      `    '${command}:${describe(command).replace(/'/g, "'\\''").replace(/:/g, '\\:')}'`,
  );
  const cases = SUBCOMMANDS.map((command) => {
    if (command === 'completion') return `    completion) _values 'shell' bash zsh fish ;;`;
    if (command === 'token') {
      return `    token) _arguments '1:action:(create list revoke)' '--name[token name]:name:' '--scope[scopes]:scopes:' '--vault[vault]:vault:_files -/' '--data[data folder]:data:_files -/' ;;`;
    }
    const specs = flagsOf(command).map((flag) => {
      const action = flag.choices
        ? `:${flag.name}:(${flag.choices.join(' ')})`
        : PATH_FLAGS.has(flag.name)
          ? `:${flag.name}:_files -/`
          : flag.value
            ? `:${flag.name}:`
            : '';
      return `'--${flag.name}[${flag.name}]${action}'`;
    });
    return `    ${command}) _arguments ${specs.join(' ')} '*:argument:' ;;`;
  });
  return `#compdef cairn-companion
# zsh completion for cairn-companion (cairn-companion completion zsh)
_cairn_companion() {
  local -a commands
  commands=(
${commands.join('\n')}
  )
  if (( CURRENT == 2 )) && [[ "$words[2]" != -* ]]; then
    _describe 'command' commands
    return
  fi
  case "$words[2]" in
${cases.join('\n')}
    *) _arguments ${flagsOf('')
      .map((flag) => `'--${flag.name}[${flag.name}]${flag.value ? `:${flag.name}:` : ''}'`)
      .join(' ')} ;;
  esac
}
compdef _cairn_companion cairn-companion
`;
}

function fish(): string {
  const lines = [
    '# fish completion for cairn-companion (cairn-companion completion fish)',
    `set -l cairn_commands ${SUBCOMMANDS.join(' ')}`,
    'complete -c cairn-companion -f',
    ...SUBCOMMANDS.map(
      (command) =>
        `complete -c cairn-companion -n "not __fish_seen_subcommand_from $cairn_commands" -a ${command}`,
    ),
    'complete -c cairn-companion -n "__fish_seen_subcommand_from completion" -a "bash zsh fish"',
    'complete -c cairn-companion -n "__fish_seen_subcommand_from token" -a "create list revoke"',
  ];
  for (const command of SUBCOMMANDS) {
    if (command === 'completion' || command === 'token') continue;
    for (const flag of flagsOf(command)) {
      const value = flag.choices
        ? ` -x -a "${flag.choices.join(' ')}"`
        : PATH_FLAGS.has(flag.name)
          ? ' -r -F'
          : flag.value
            ? ' -r'
            : '';
      lines.push(
        `complete -c cairn-companion -n "__fish_seen_subcommand_from ${command}" -l ${flag.name}${value}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
