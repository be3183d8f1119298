/**
 * Cairn's settings, the plugin's `data.json`: their shape and defaults, the one definition both
 * sides read. The plugin loads and saves the file (plugin/main.ts); the companion reads
 * `timezone`, `folders` and `search.excludeGlobs` from the same file through the same reader
 * (`loadSettings`, companion/vault/plugin-settings.ts). docs/plugin.md lists what a user can
 * configure. Rename a key only with a migration (migrations.ts).
 */
import type { SettingsCategory } from '../protocol/sync-settings';
import type { UnsupportedClaimPolicy } from '../protocol/answer-audit';
import type { ToolPermission } from '../protocol/tools';

/** Where the plugin keeps this file, relative to the vault (Obsidian's default config folder). */
export const PLUGIN_DATA_PATH = '.obsidian/plugins/cairn/data.json';

export const CURRENT_SETTINGS_VERSION = 1;

/** The choices of `ollama.unsupportedClaims`. */
export const UNSUPPORTED_CLAIM_POLICIES: readonly UnsupportedClaimPolicy[] = ['mark', 'remove'];

export const EMBEDDING_PROVIDERS = ['companion', 'ollama', 'builtin', 'none'] as const;
export type EmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number];

/** Reminder syntaxes Cairn reads. Only `cairn` (`@remind(...)`) is ever written. */
/** Who phrases chat answers: Ollama, or any server speaking OpenAI's /v1/chat/completions. */
export const CHAT_PROVIDERS = ['ollama', 'openai-compatible'] as const;
export type ChatProvider = (typeof CHAT_PROVIDERS)[number];

export interface ReminderSyntaxes {
  /** `@remind(2026-11-23 17:00)`: Cairn's own inline syntax. */
  cairn: boolean;
  /** The Reminder plugin's `(@2026-11-23 17:00)`. */
  reminderPlugin: boolean;
  /** The Tasks plugin's `⏰ 2026-11-23 10:00`. */
  tasks: boolean;
}

/** Where Cairn writes in the vault: vault-relative, no leading or trailing slash. */
export interface VaultFolders {
  notes: string;
  reminders: string;
  chats: string;
  attachments: string;
}

/** Cairn's folders unless data.json says otherwise. Frozen: copy it before changing a field. */
export const DEFAULT_FOLDERS: Readonly<VaultFolders> = Object.freeze({
  notes: 'Cairn/Notes',
  reminders: 'Cairn/Reminders',
  chats: 'Cairn/Chats',
  attachments: 'Cairn/Attachments',
});

export interface CairnSettings {
  settingsVersion: number;
  companion: {
    /** Base URL of the companion, e.g. `http://192.168.1.20:8787`; empty = not paired. */
    url: string;
    token: string;
  };
  /** IANA zone used for reminders written without one. */
  timezone: string;
  /** Vault-relative folders, no leading or trailing slash. */
  folders: VaultFolders;
  embeddings: {
    provider: EmbeddingProvider;
    /**
     * Where "Download the built-in model" fetches each model file from (`<url>/<file name>`).
     * Empty = the project's release assets for this plugin's version (release-info.ts), so the
     * default follows the plugin through updates; only a URL the user typed is stored.
     */
    modelDownloadUrl: string;
  };
  ollama: {
    url: string;
    /** Empty = no LLM: answers stay extractive. */
    chatModel: string;
    embedModel: string;
    /** Answers chat messages with images; empty = images are refused. */
    visionModel: string;
    /**
     * What becomes of a phrased claim its cited passages do not support
     * (shared/search/claim-check.ts): marked with why, or removed with a note.
     */
    unsupportedClaims: UnsupportedClaimPolicy;
  };
  /** The phrasing model; Ollama's own fields stay under `ollama`. */
  chat: {
    provider: ChatProvider;
    /** OpenAI-compatible base URL including its prefix, e.g. http://127.0.0.1:1234/v1. */
    openAiUrl: string;
    openAiModel: string;
    /** Optional: sent as a bearer token; most local servers need none. */
    openAiKey: string;
  };
  reminders: {
    syntaxes: ReminderSyntaxes;
  };
  search: {
    /** Glob patterns (vault-relative) never indexed, e.g. `Templates/**`. */
    excludeGlobs: string[];
    /** On phones, ask the companion instead of indexing the vault on the device. */
    delegateToCompanionOnMobile: boolean;
  };
  privacy: {
    /** Only loopback and LAN hosts are contacted while this is on (docs/plugin.md). */
    offlineMode: boolean;
  };
  /**
   * The tools of the plugin's own chat (docs/tools.md), the one in Obsidian's pane: what the user
   * changed from the defaults (plugin/chat/local-tool-policy.ts). The companion keeps its own.
   */
  chatTools: {
    /** Allow, ask or deny per tool name, for everything; a tool not listed has its default. */
    permissions: Record<string, ToolPermission>;
    /** Tools switched off: never run, refused with a sentence. */
    disabled: string[];
  };
  /** Cairn Sync (docs/sync.md): this vault synced with the companion. Off by default. */
  sync: {
    enabled: boolean;
    /** How the companion names this device in history and conflict copies; empty = a default. */
    deviceName: string;
    /**
     * Vault folders this device does not sync (a phone skipping `Archive`): neither uploaded
     * nor downloaded, and never deleted anywhere for being left out.
     */
    excludedFolders: string[];
    /**
     * The `.obsidian/` settings categories this device syncs (shared/protocol/sync-settings.ts);
     * none by default. Per device: this file itself never syncs.
     */
    settingsCategories: SettingsCategory[];
    /**
     * Files above this many MB that are not on this device are downloaded only when opened;
     * 0 = every file is downloaded (the default; 10 suits most phones).
     */
    downloadOnOpenAboveMB: number;
  };
}

/**
 * Defaults are built per call (never a shared mutable object) so one loaded settings
 * object can never leak edits into another's defaults.
 */
export function defaultSettings(systemTimeZone: string): CairnSettings {
  return {
    settingsVersion: CURRENT_SETTINGS_VERSION,
    companion: { url: '', token: '' },
    timezone: systemTimeZone,
    folders: { ...DEFAULT_FOLDERS },
    embeddings: { provider: 'builtin', modelDownloadUrl: '' },
    ollama: {
      url: 'http://127.0.0.1:11434',
      chatModel: '',
      embedModel: 'nomic-embed-text',
      visionModel: '',
      unsupportedClaims: 'mark',
    },
    chat: {
      provider: 'ollama',
      openAiUrl: 'http://127.0.0.1:1234/v1',
      openAiModel: '',
      openAiKey: '',
    },
    reminders: { syntaxes: { cairn: true, reminderPlugin: true, tasks: true } },
    search: { excludeGlobs: [], delegateToCompanionOnMobile: true },
    privacy: { offlineMode: true },
    chatTools: { permissions: {}, disabled: [] },
    sync: {
      enabled: false,
      deviceName: '',
      excludedFolders: [],
      settingsCategories: [],
      downloadOnOpenAboveMB: 0,
    },
  };
}
