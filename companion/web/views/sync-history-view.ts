import type {
  SyncCommitResponse,
  SyncHistoryResponse,
  SyncOpResult,
  SyncTrashResponse,
  SyncVersion,
} from '../../../shared/protocol/sync';
import { sideBySideDiff } from '../../../shared/markdown/line-diff';
import { CompanionApiError } from '../api-client';
import { byId, describeError, el, formatWhen, noticeItem } from '../dom';
import type { PageContext, PageView } from './page-context';

/*
 * Deleted files and a note's history (docs/sync.md "History and undelete"), from Cairn Sync's
 * routes: `GET /api/v1/sync/trash`, `GET /api/v1/sync/history`, a version's bytes from
 * `GET /api/v1/sync/blobs/:hash`, `POST /api/v1/sync/restore` for deleted files and a commit
 * for "Restore this version", and `POST /api/v1/sync/restore` with a folder and a time for
 * "Restore a folder as it was at…". Every restore is a new version; nothing in history is
 * rewritten. An older version is shown against the latest as a one-column line diff.
 * All of these need the token's `sync` scope; without it the view says how to get one.
 */

/** The device name the companion journals the phone page's restores under. */
export const PHONE_SYNC_DEVICE = 'Phone page';

const NO_SCOPE =
  'This phone’s token has no sync scope, so it cannot show history or deleted files. Pair the phone again from Obsidian (Settings → Cairn → Sync), or sign in with a token made with `cairn-companion token create --name phone --scope read,write,sync`.';

export function syncHistoryView(context: PageContext): PageView {
  const scope = byId<HTMLParagraphElement>('sync-scope');
  const trashList = byId<HTMLUListElement>('sync-trash');
  const restoreSelected = byId<HTMLButtonElement>('sync-restore');
  const historyForm = byId<HTMLFormElement>('sync-history-form');
  const historyPath = byId<HTMLInputElement>('sync-history-path');
  const versionsList = byId<HTMLOListElement>('sync-versions');
  const versionCard = byId<HTMLElement>('sync-version');
  const versionTitle = byId<HTMLHeadingElement>('sync-version-title');
  const versionText = byId<HTMLPreElement>('sync-version-text');
  const versionRestore = byId<HTMLButtonElement>('sync-version-restore');
  const diffGroup = byId<HTMLElement>('sync-version-diff-group');
  const diffList = byId<HTMLOListElement>('sync-version-diff');
  const folderForm = byId<HTMLFormElement>('sync-folder-form');
  const folderPath = byId<HTMLInputElement>('sync-folder-path');
  const folderAt = byId<HTMLInputElement>('sync-folder-at');
  const folderRestore = byId<HTMLButtonElement>('sync-folder-restore');

  let trash: SyncTrashResponse['files'] = [];
  let history: { path: string; fileId: string; versions: SyncVersion[] } | null = null;
  let shownVersion: SyncVersion | null = null;

  const pathHint = () => noticeItem('Enter a note’s path, or pick a deleted file above.');

  /** True (and the view says why) when the companion refused for want of the sync scope. */
  function lacksScope(error: unknown): boolean {
    const missing = error instanceof CompanionApiError && error.status === 403;
    scope.hidden = !missing;
    if (missing) scope.textContent = NO_SCOPE;
    return missing;
  }

  function checked(): string[] {
    return [...trashList.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked')].map(
      (box) => box.value,
    );
  }

  function updateRestoreButton(): void {
    const count = checked().length;
    restoreSelected.disabled = count === 0;
    restoreSelected.textContent = count > 1 ? `Restore ${count} files` : 'Restore';
  }

  async function loadTrash(): Promise<void> {
    const api = context.api();
    if (!api) return;
    try {
      const body = await api.get<SyncTrashResponse>('/api/v1/sync/trash?limit=100');
      scope.hidden = true;
      trash = body.files;
      trashList.replaceChildren(
        ...(trash.length > 0 ? trash.map(trashRow) : [noticeItem('No deleted files.')]),
      );
    } catch (error) {
      trash = [];
      trashList.replaceChildren(
        lacksScope(error)
          ? noticeItem('Needs the sync scope.', 'error')
          : noticeItem(`Could not load deleted files: ${describeError(error)}`, 'error'),
      );
    }
    updateRestoreButton();
  }

  function trashRow(file: SyncTrashResponse['files'][number]): HTMLLIElement {
    const id = `sync-trash-${file.file_id}`;
    const box = el('input', { type: 'checkbox', id, value: file.file_id });
    box.addEventListener('change', updateRestoreButton);
    const showHistory = el('button', { type: 'button', class: 'link-button' }, 'History');
    showHistory.addEventListener('click', () => {
      historyPath.value = file.path;
      void loadHistory(file.path);
    });
    return el(
      'li',
      { class: 'sync-row', 'data-file-id': file.file_id },
      box,
      el(
        'label',
        { for: id, class: 'sync-row-body' },
        el('span', { class: 'sync-path', title: file.path }, file.path),
        el(
          'span',
          { class: 'sync-meta' },
          `Deleted ${formatWhen(file.deleted)} on ${deviceLabel(file.device)}`,
        ),
      ),
      showHistory,
    );
  }

  restoreSelected.addEventListener('click', () => void restoreDeleted());

  async function restoreDeleted(): Promise<void> {
    const api = context.api();
    const ids = checked();
    if (!api || ids.length === 0) return;
    const paths = ids.map((id) => trash.find((file) => file.file_id === id)?.path ?? id);
    const question =
      paths.length === 1
        ? `Restore “${paths[0]}”? It comes back with its last version, on every device.`
        : `Restore these ${paths.length} files? They come back with their last versions, on every device.\n\n${paths.join('\n')}`;
    if (!window.confirm(question)) return;
    restoreSelected.disabled = true;
    try {
      const body = await api.post<SyncCommitResponse>('/api/v1/sync/restore', {
        device: PHONE_SYNC_DEVICE,
        file_ids: ids,
      });
      const outcome = describeResults(body.results);
      context.say(outcome.text, outcome.failed ? 'error' : 'info');
    } catch (error) {
      if (lacksScope(error)) context.say(NO_SCOPE, 'error');
      else context.say(`Restore failed: ${describeError(error)}`, 'error');
    }
    await loadTrash();
  }

  historyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const path = historyPath.value.trim();
    if (path !== '') void loadHistory(path);
  });

  async function loadHistory(path: string): Promise<void> {
    const api = context.api();
    if (!api) return;
    versionCard.hidden = true;
    shownVersion = null;
    try {
      const body = await api.get<SyncHistoryResponse>(
        `/api/v1/sync/history?path=${encodeURIComponent(path)}`,
      );
      scope.hidden = true;
      history = { path, fileId: body.file_id, versions: body.versions };
      versionsList.replaceChildren(
        ...(body.versions.length > 0
          ? body.versions.map((version, index) => versionRow(version, index === 0))
          : [noticeItem('No versions of this file are held any more.')]),
      );
    } catch (error) {
      history = null;
      const text = lacksScope(error)
        ? 'Needs the sync scope.'
        : error instanceof CompanionApiError && error.status === 404
          ? `No synced file at “${path}”.`
          : `Could not load the history: ${describeError(error)}`;
      versionsList.replaceChildren(noticeItem(text, 'error'));
    }
    versionsList.scrollIntoView({ block: 'nearest' });
  }

  function versionRow(version: SyncVersion, latest: boolean): HTMLLIElement {
    const open = el(
      'button',
      { type: 'button', class: 'sync-version-open' },
      el('span', { class: 'sync-path' }, `${formatWhen(version.time)}${latest ? ' · latest' : ''}`),
      el(
        'span',
        { class: 'sync-meta' },
        `${deviceLabel(version.device)} · ${formatSize(version.size)}${
          history !== null && version.path !== history.path ? ` · was ${version.path}` : ''
        }`,
      ),
    );
    open.addEventListener('click', () => void showVersion(version, latest));
    return el('li', { class: 'sync-row', 'data-hash': version.hash }, open);
  }

  async function showVersion(version: SyncVersion, latest: boolean): Promise<void> {
    const api = context.api();
    if (!api) return;
    shownVersion = version;
    for (const row of versionsList.querySelectorAll('li.sync-row')) {
      if (row.getAttribute('data-hash') === version.hash) row.setAttribute('aria-current', 'true');
      else row.removeAttribute('aria-current');
    }
    versionTitle.textContent = `${formatWhen(version.time)} on ${deviceLabel(version.device)}`;
    versionText.textContent = 'Loading…';
    versionRestore.hidden = latest;
    versionCard.hidden = false;
    diffGroup.hidden = true;
    diffList.replaceChildren();
    const newest = history?.versions[0];
    try {
      const blob = (hash: string) => api.getText(`/api/v1/sync/blobs/${encodeURIComponent(hash)}`);
      const [text, now] = await Promise.all([
        blob(version.hash),
        !latest && newest !== undefined ? blob(newest.hash) : Promise.resolve(null),
      ]);
      if (shownVersion !== version) return;
      versionText.textContent = text;
      if (now !== null) showDiff(text, now);
    } catch (error) {
      if (shownVersion !== version) return;
      versionText.textContent = lacksScope(error)
        ? 'Needs the sync scope.'
        : `Could not load this version: ${describeError(error)}`;
      versionRestore.hidden = true;
    }
    versionCard.scrollIntoView({ block: 'start' });
  }

  /** This version against the latest: − lines only in this version, + lines only now. */
  function showDiff(then: string, now: string): void {
    const diff = sideBySideDiff(then, now);
    const line = (kind: 'same' | 'removed' | 'added', text: string) =>
      el('li', { class: `is-${kind}` }, text);
    if (!diff.ok) {
      diffList.replaceChildren(line('same', `Not compared: ${diff.reason}.`));
    } else if (diff.rows.every((row) => row.kind === 'same')) {
      diffList.replaceChildren(line('same', 'The same lines as now.'));
    } else {
      diffList.replaceChildren(
        ...diff.rows.flatMap((row) => {
          switch (row.kind) {
            case 'same':
              return [line('same', row.left)];
            case 'left':
              return [line('removed', row.left)];
            case 'right':
              return [line('added', row.right)];
            case 'changed':
              return [line('removed', row.left), line('added', row.right)];
          }
        }),
      );
    }
    diffGroup.hidden = false;
  }

  versionRestore.addEventListener('click', () => void restoreVersion());

  folderForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void restoreFolder();
  });

  /** Every file of the folder back to its version at that time, as new versions. */
  async function restoreFolder(): Promise<void> {
    const api = context.api();
    const time = Date.parse(folderAt.value);
    if (!api || Number.isNaN(time)) return;
    const folder = folderPath.value.trim().replace(/^\/+|\/+$/g, '');
    const what = folder === '' ? 'the whole vault' : `“${folder}”`;
    if (
      !window.confirm(
        `Restore ${what} as it was ${formatWhen(new Date(time).toISOString())}? Each file gets that version back as a new version, on every device; files made since stay.`,
      )
    ) {
      return;
    }
    folderRestore.disabled = true;
    try {
      const body = await api.post<SyncCommitResponse>('/api/v1/sync/restore', {
        device: PHONE_SYNC_DEVICE,
        folder,
        at: new Date(time).toISOString(),
      });
      if (body.results.length === 0) {
        context.say(`Nothing to restore: ${what} is as it was then.`, 'info');
      } else {
        const outcome = describeResults(body.results);
        context.say(outcome.text, outcome.failed ? 'error' : 'info');
      }
    } catch (error) {
      if (lacksScope(error)) context.say(NO_SCOPE, 'error');
      else context.say(`Restore failed: ${describeError(error)}`, 'error');
    } finally {
      folderRestore.disabled = false;
    }
    await loadTrash();
  }

  /** A new version with the old bytes, on top of the latest (which stays in history). */
  async function restoreVersion(): Promise<void> {
    const api = context.api();
    const version = shownVersion;
    const current = history?.versions[0];
    if (!api || !version || !history || !current) return;
    const path = history.path;
    if (
      !window.confirm(
        `Restore “${path}” as it was ${formatWhen(version.time)}? It is written as a new version; today’s stays in history.`,
      )
    ) {
      return;
    }
    versionRestore.disabled = true;
    try {
      const body = await api.post<SyncCommitResponse>('/api/v1/sync/commit', {
        device: PHONE_SYNC_DEVICE,
        ops: [
          { path: current.path, file_id: history.fileId, base: current.hash, hash: version.hash },
        ],
      });
      const outcome = describeResults(body.results);
      context.say(outcome.text, outcome.failed ? 'error' : 'info');
    } catch (error) {
      if (lacksScope(error)) context.say(NO_SCOPE, 'error');
      else context.say(`Restore failed: ${describeError(error)}`, 'error');
    } finally {
      versionRestore.disabled = false;
    }
    await Promise.all([loadHistory(path), loadTrash()]);
  }

  return {
    show: async () => {
      await loadTrash();
      if (history === null && versionsList.childElementCount === 0) {
        versionsList.replaceChildren(pathHint());
      }
    },
    reset() {
      trash = [];
      history = null;
      shownVersion = null;
      scope.hidden = true;
      trashList.replaceChildren();
      versionsList.replaceChildren();
      versionCard.hidden = true;
      versionText.textContent = '';
      diffGroup.hidden = true;
      diffList.replaceChildren();
      historyPath.value = '';
      folderPath.value = '';
      folderAt.value = '';
    },
  };
}

/** What the companion did with each restored file, in a sentence a person can act on. */
function describeResults(results: SyncOpResult[]): { text: string; failed: boolean } {
  const restored: string[] = [];
  const problems: string[] = [];
  for (const result of results) {
    switch (result.status) {
      case 'accepted':
      case 'merged':
        restored.push(result.path);
        break;
      case 'conflict':
        problems.push(
          `${result.path} changed meanwhile; the restored text is in ${result.copy_path}`,
        );
        break;
      case 'held':
        problems.push('the companion is holding the batch for a decision');
        break;
      case 'rejected':
        problems.push(result.error.message);
        break;
    }
  }
  const text =
    problems.length === 0
      ? restored.length === 1
        ? `Restored ${restored[0]}.`
        : `Restored ${restored.length} files.`
      : `Restored ${restored.length} of ${results.length} files.`;
  if (problems.length === 0) return { text, failed: false };
  return { text: `${text} ${problems.join('; ')}.`, failed: true };
}

/** `server` (SYNC_SERVER_DEVICE): a change made on the companion's own disk. */
function deviceLabel(device: string): string {
  return device === 'server' ? 'the companion' : device;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
