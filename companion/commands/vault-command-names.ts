/**
 * The shell commands that speak the vault's HTTP API (docs/cli.md), by name only: the CLI's
 * entry point asks "is this one of them?" before it loads any of them (vault-commands.ts holds
 * each command's flags and usage).
 */
export const VAULT_COMMAND_NAMES = [
  'search',
  'ask',
  'remind',
  'note',
  'reminders',
  'remember',
  'status',
  'import',
] as const;

export type VaultCommandName = (typeof VAULT_COMMAND_NAMES)[number];

export function isVaultCommand(name: string | undefined): name is VaultCommandName {
  return (VAULT_COMMAND_NAMES as readonly string[]).includes(name ?? '');
}
