/**
 * Turns whatever is in data.json into a complete, valid CairnSettings. Nested objects get
 * their defaults key by key (a shallow `Object.assign` would drop a whole nested object's
 * defaults), each field is type-checked on its own, and a bad field falls back to its
 * default with a problem naming it, so one typo never resets everything else.
 */
import { normalizeSettingsCategories } from '../protocol/sync-settings';
import {
  CHAT_PROVIDERS,
  CURRENT_SETTINGS_VERSION,
  defaultSettings,
  EMBEDDING_PROVIDERS,
  UNSUPPORTED_CLAIM_POLICIES,
} from './cairn-settings';
import type { CairnSettings } from './cairn-settings';
import type { ToolPermission } from '../protocol/tools';
import { isRecord } from '../protocol/json';
import { migrateSettings } from './migrations';
import type { RawSettings } from './migrations';
import {
  checkHttpUrl,
  checkModelDownloadUrl,
  checkDeviceName,
  checkVaultFolder,
  isValidTimeZone,
} from './validation';

export interface SettingsProblem {
  /** Dotted path in data.json, e.g. `companion.url`. */
  field: string;
  message: string;
}

export interface LoadedSettings {
  settings: CairnSettings;
  problems: SettingsProblem[];
  /** Descriptions of the migrations that ran, oldest first. */
  migrations: string[];
  /**
   * The dotted paths whose value came from the file (and passed its check); every other field
   * holds its default. A reader with a fallback of its own (the companion's zone comes from a
   * flag, then data.json, then the system) asks this rather than comparing with the default.
   */
  fromFile: ReadonlySet<string>;
}

/**
 * `systemTimeZone` is the default zone, or a function giving it: a function is called only
 * when `timezone` is first read (and only if data.json has no valid zone), because asking the
 * runtime for its zone costs tens of milliseconds the first time and plugin start-up need not
 * pay them (see validation.ts, isValidTimeZone).
 */
export function loadSettings(
  raw: unknown,
  systemTimeZone: string | (() => string),
): LoadedSettings {
  if (typeof systemTimeZone === 'string') return readSettings(raw, systemTimeZone);
  const loaded = readSettings(raw, SYSTEM_ZONE_PENDING);
  if (loaded.settings.timezone === SYSTEM_ZONE_PENDING) {
    resolveTimeZoneOnFirstUse(loaded.settings, systemTimeZone);
  }
  return loaded;
}

/**
 * Stands in for the system zone while settings are read. It is not a zone name, so a
 * data.json holding this text fails the zone check and gets the default like any typo.
 */
const SYSTEM_ZONE_PENDING = '(system time zone)';

/**
 * Makes `settings.timezone` a property that asks `systemTimeZone` on its first read and then
 * holds the answer as a plain value; a write before any read skips the question. It stays
 * enumerable, so saving, spreading and comparing see the zone like any other field.
 */
function resolveTimeZoneOnFirstUse(settings: CairnSettings, systemTimeZone: () => string): void {
  const settle = (zone: string): string => {
    Object.defineProperty(settings, 'timezone', {
      value: zone,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    return zone;
  };
  Object.defineProperty(settings, 'timezone', {
    get: () => settle(systemTimeZone()),
    set: (zone: string) => settle(zone),
    enumerable: true,
    configurable: true,
  });
}

function readSettings(raw: unknown, systemTimeZone: string): LoadedSettings {
  const defaults = defaultSettings(systemTimeZone);
  const problems: SettingsProblem[] = [];
  // Obsidian's loadData() answers null for a fresh install: that is not a problem.
  if (raw === null || raw === undefined) {
    return { settings: defaults, problems, migrations: [], fromFile: new Set() };
  }
  if (!isRecord(raw)) {
    problems.push({
      field: '(file)',
      message: `expected an object, found ${describe(raw)}; using all defaults`,
    });
    return { settings: defaults, problems, migrations: [], fromFile: new Set() };
  }

  const version = readVersion(raw, problems);
  let data: RawSettings = raw;
  let migrations: string[] = [];
  if (version > CURRENT_SETTINGS_VERSION) {
    problems.push({
      field: 'settingsVersion',
      message: `written by a newer Cairn (version ${version}, this one reads ${CURRENT_SETTINGS_VERSION}); fields it does not know are kept as they are`,
    });
  } else if (version < CURRENT_SETTINGS_VERSION) {
    const migrated = migrateSettings(raw, version, CURRENT_SETTINGS_VERSION);
    data = migrated.data;
    migrations = migrated.applied;
  }

  const read = new FieldReader(problems);
  const root: Located = { value: data, path: '' };
  const companion = read.object(root, 'companion');
  const folders = read.object(root, 'folders');
  const embeddings = read.object(root, 'embeddings');
  const ollama = read.object(root, 'ollama');
  const chat = read.object(root, 'chat');
  const reminders = read.object(root, 'reminders');
  const syntaxes = read.object(reminders, 'syntaxes');
  const search = read.object(root, 'search');
  const privacy = read.object(root, 'privacy');
  const sync = read.object(root, 'sync');
  const chatTools = read.object(root, 'chatTools');

  const settings: CairnSettings = {
    // A newer file keeps its version so saving it back does not claim an older layout.
    settingsVersion: Math.max(version, CURRENT_SETTINGS_VERSION),
    companion: {
      url: read.string(companion, 'url', defaults.companion.url, optionalHttpUrl),
      token: read.string(companion, 'token', defaults.companion.token, trimmed),
    },
    timezone: read.string(root, 'timezone', defaults.timezone, timeZone),
    folders: {
      notes: read.string(folders, 'notes', defaults.folders.notes, vaultFolder),
      reminders: read.string(folders, 'reminders', defaults.folders.reminders, vaultFolder),
      chats: read.string(folders, 'chats', defaults.folders.chats, vaultFolder),
      attachments: read.string(folders, 'attachments', defaults.folders.attachments, vaultFolder),
    },
    embeddings: {
      provider: read.oneOf(
        embeddings,
        'provider',
        defaults.embeddings.provider,
        EMBEDDING_PROVIDERS,
      ),
      modelDownloadUrl: read.string(
        embeddings,
        'modelDownloadUrl',
        defaults.embeddings.modelDownloadUrl,
        optionalModelDownloadUrl,
      ),
    },
    ollama: {
      url: read.string(ollama, 'url', defaults.ollama.url, requiredHttpUrl),
      chatModel: read.string(ollama, 'chatModel', defaults.ollama.chatModel, trimmed),
      embedModel: read.string(ollama, 'embedModel', defaults.ollama.embedModel, trimmed),
      visionModel: read.string(ollama, 'visionModel', defaults.ollama.visionModel, trimmed),
      unsupportedClaims: read.oneOf(
        ollama,
        'unsupportedClaims',
        defaults.ollama.unsupportedClaims,
        UNSUPPORTED_CLAIM_POLICIES,
      ),
    },
    chat: {
      provider: read.oneOf(chat, 'provider', defaults.chat.provider, CHAT_PROVIDERS),
      openAiUrl: read.string(chat, 'openAiUrl', defaults.chat.openAiUrl, requiredHttpUrl),
      openAiModel: read.string(chat, 'openAiModel', defaults.chat.openAiModel, trimmed),
      openAiKey: read.string(chat, 'openAiKey', defaults.chat.openAiKey, trimmed),
    },
    reminders: {
      syntaxes: {
        cairn: read.boolean(syntaxes, 'cairn', defaults.reminders.syntaxes.cairn),
        reminderPlugin: read.boolean(
          syntaxes,
          'reminderPlugin',
          defaults.reminders.syntaxes.reminderPlugin,
        ),
        tasks: read.boolean(syntaxes, 'tasks', defaults.reminders.syntaxes.tasks),
      },
    },
    search: {
      excludeGlobs: read.stringList(search, 'excludeGlobs', defaults.search.excludeGlobs),
      delegateToCompanionOnMobile: read.boolean(
        search,
        'delegateToCompanionOnMobile',
        defaults.search.delegateToCompanionOnMobile,
      ),
    },
    privacy: {
      offlineMode: read.boolean(privacy, 'offlineMode', defaults.privacy.offlineMode),
    },
    chatTools: {
      permissions: read.choiceMap(chatTools, 'permissions', TOOL_PERMISSIONS),
      disabled: read.stringList(chatTools, 'disabled', defaults.chatTools.disabled),
    },
    sync: {
      enabled: read.boolean(sync, 'enabled', defaults.sync.enabled),
      deviceName: read.string(sync, 'deviceName', defaults.sync.deviceName, deviceName),
      excludedFolders: read.stringList(sync, 'excludedFolders', defaults.sync.excludedFolders),
      settingsCategories: normalizeSettingsCategories(
        read.stringList(sync, 'settingsCategories', defaults.sync.settingsCategories),
      ),
      downloadOnOpenAboveMB: read.boundedNumber(
        sync,
        'downloadOnOpenAboveMB',
        defaults.sync.downloadOnOpenAboveMB,
        100_000,
      ),
    },
  };

  return { settings, problems, migrations, fromFile: read.fromFile };
}

/**
 * What to write back to data.json: the settings over the file as it was, so keys this
 * version does not know (written by a newer Cairn, or by the companion) survive a save.
 */
export function toStoredData(settings: CairnSettings, previous: unknown): Record<string, unknown> {
  return overlay(
    isRecord(previous) ? previous : {},
    settings as unknown as Record<string, unknown>,
  );
}

function overlay(
  base: Record<string, unknown>,
  top: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(top)) {
    const under = base[key];
    result[key] = isRecord(value) && isRecord(under) ? overlay(under, value) : value;
  }
  return result;
}

export function formatProblem(problem: SettingsProblem): string {
  return `Cairn settings (data.json) › ${problem.field}: ${problem.message}`;
}

function readVersion(raw: RawSettings, problems: SettingsProblem[]): number {
  const value = raw.settingsVersion;
  // Files written before versioning had no settingsVersion: they are version 0.
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  problems.push({
    field: 'settingsVersion',
    message: `expected a whole number ≥ 0, found ${describe(value)}; treating the file as version 0`,
  });
  return 0;
}

const TOOL_PERMISSIONS: readonly ToolPermission[] = ['allow', 'ask', 'deny'];

/** A field check: the value to keep, or a message saying why the default is used instead. */
type Check = (value: string) => { ok: true; value: string } | { ok: false; message: string };

const trimmed: Check = (value) => ({ ok: true, value: value.trim() });

const optionalHttpUrl: Check = (value) => {
  if (value.trim() === '') return { ok: true, value: '' };
  return requiredHttpUrl(value);
};

const requiredHttpUrl: Check = (value) => {
  const checked = checkHttpUrl(value);
  return checked.ok ? { ok: true, value: checked.url } : checked;
};

/** Empty means the default download location (settings.ts), so it is valid. */
const optionalModelDownloadUrl: Check = (value) => {
  if (value.trim() === '') return { ok: true, value: '' };
  const checked = checkModelDownloadUrl(value);
  return checked.ok ? { ok: true, value: checked.url } : checked;
};

const timeZone: Check = (value) =>
  isValidTimeZone(value.trim())
    ? { ok: true, value: value.trim() }
    : { ok: false, message: `"${value}" is not an IANA time zone (e.g. Europe/Berlin)` };

const deviceName: Check = (value) => {
  const checked = checkDeviceName(value);
  return checked.ok ? { ok: true, value: checked.name } : checked;
};

const vaultFolder: Check = (value) => {
  const checked = checkVaultFolder(value);
  return checked.ok ? { ok: true, value: checked.folder } : checked;
};

/** An object inside data.json with its dotted path, so a problem can name the exact field. */
interface Located {
  value: Record<string, unknown>;
  path: string;
}

class FieldReader {
  readonly fromFile = new Set<string>();

  constructor(private readonly problems: SettingsProblem[]) {}

  object(parent: Located, key: string): Located {
    const path = join(parent.path, key);
    const value = parent.value[key];
    if (value === undefined) return { value: {}, path };
    if (isRecord(value)) return { value, path };
    this.report(
      path,
      `expected an object, found ${describe(value)}; using the defaults for every ${path}.* field`,
    );
    return { value: {}, path };
  }

  string(parent: Located, key: string, fallback: string, check: Check): string {
    const { value: container, path } = locate(parent, key);
    const value = container[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'string') {
      this.report(
        path,
        `expected text, found ${describe(value)}; using the default ${JSON.stringify(fallback)}`,
      );
      return fallback;
    }
    const checked = check(value);
    if (checked.ok) return this.kept(path, checked.value);
    this.report(path, `${checked.message}; using the default ${JSON.stringify(fallback)}`);
    return fallback;
  }

  boolean(parent: Located, key: string, fallback: boolean): boolean {
    const { value: container, path } = locate(parent, key);
    const value = container[key];
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return this.kept(path, value);
    this.report(
      path,
      `expected true or false, found ${describe(value)}; using the default ${fallback}`,
    );
    return fallback;
  }

  /** A number from 0 to `max`. */
  boundedNumber(parent: Located, key: string, fallback: number, max: number): number {
    const { value: container, path } = locate(parent, key);
    const value = container[key];
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max)
      return this.kept(path, value);
    this.report(
      path,
      `expected a number from 0 to ${max}, found ${describe(value)}; using the default ${fallback}`,
    );
    return fallback;
  }

  oneOf<T extends string>(parent: Located, key: string, fallback: T, allowed: readonly T[]): T {
    const { value: container, path } = locate(parent, key);
    const value = container[key];
    if (value === undefined) return fallback;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value))
      return this.kept(path, value as T);
    this.report(
      path,
      `expected one of ${allowed.map((option) => JSON.stringify(option)).join(', ')}, found ${describe(value)}; using the default ${JSON.stringify(fallback)}`,
    );
    return fallback;
  }

  /** An object of name → one of `allowed`; a bad entry is dropped (its default applies). */
  choiceMap<T extends string>(
    parent: Located,
    key: string,
    allowed: readonly T[],
  ): Record<string, T> {
    const map = this.object(parent, key);
    const kept: Record<string, T> = {};
    for (const [name, value] of Object.entries(map.value)) {
      if (name === '__proto__') continue;
      if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
        kept[name] = value as T;
      } else {
        this.report(
          join(map.path, name),
          `expected one of ${allowed.map((option) => JSON.stringify(option)).join(', ')}, found ${describe(value)}; using the default`,
        );
      }
    }
    if (Object.keys(kept).length > 0) this.fromFile.add(map.path);
    return kept;
  }

  stringList(parent: Located, key: string, fallback: string[]): string[] {
    const { value: container, path } = locate(parent, key);
    const value = container[key];
    if (value === undefined) return [...fallback];
    if (!Array.isArray(value)) {
      this.report(
        path,
        `expected a list of text, found ${describe(value)}; using the default (empty list)`,
      );
      return [...fallback];
    }
    const kept: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item !== 'string') {
        this.report(`${path}[${index}]`, `expected text, found ${describe(item)}; entry ignored`);
      } else if (item.trim() !== '') {
        kept.push(item.trim());
      }
    });
    return this.kept(path, kept);
  }

  private kept<T>(path: string, value: T): T {
    this.fromFile.add(path);
    return value;
  }

  private report(field: string, message: string): void {
    this.problems.push({ field, message });
  }
}

function locate(parent: Located, key: string): Located {
  return { value: parent.value, path: join(parent.path, key) };
}

function join(parentPath: string, key: string): string {
  return parentPath === '' ? key : `${parentPath}.${key}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `text ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}
