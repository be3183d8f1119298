/**
 * Cairn's settings: their shape and defaults. docs/plugin.md lists what a user can configure;
 * the companion reads `timezone` and `folders` from the same data.json (companion/README.md), so
 * those keys are a contract: rename them only with a migration on both sides.
 */

export const CURRENT_SETTINGS_VERSION = 1;

export const EMBEDDING_PROVIDERS = ['companion', 'ollama', 'builtin', 'none'] as const;
export type EmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number];

/** Reminder syntaxes Cairn reads. Only `cairn` (`@remind(...)`) is ever written. */
export interface ReminderSyntaxes {
  /** `@remind(2026-11-23 17:00)`: Cairn's own inline syntax. */
  cairn: boolean;
  /** The Reminder plugin's `(@2026-11-23 17:00)`. */
  reminderPlugin: boolean;
  /** The Tasks plugin's `⏰ 2026-11-23 10:00`. */
  tasks: boolean;
}

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
  folders: {
    notes: string;
    reminders: string;
    chats: string;
    attachments: string;
  };
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
  /** Cairn Sync (docs/sync.md): this vault synced with the companion. Off by default. */
  sync: {
    enabled: boolean;
    /** How the companion names this device in history and conflict copies; empty = a default. */
    deviceName: string;
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
    folders: {
      notes: 'Cairn/Notes',
      reminders: 'Cairn/Reminders',
      chats: 'Cairn/Chats',
      attachments: 'Cairn/Attachments',
    },
    embeddings: { provider: 'builtin', modelDownloadUrl: '' },
    ollama: {
      url: 'http://127.0.0.1:11434',
      chatModel: '',
      embedModel: 'nomic-embed-text',
      visionModel: '',
    },
    reminders: { syntaxes: { cairn: true, reminderPlugin: true, tasks: true } },
    search: { excludeGlobs: [], delegateToCompanionOnMobile: true },
    privacy: { offlineMode: true },
    sync: { enabled: false, deviceName: '' },
  };
}
