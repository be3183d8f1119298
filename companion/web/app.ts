import { isRecord } from '../../shared/protocol/json';
import { CompanionApiError, companionApi } from './api-client';
import type { CompanionApi, ResponseCache } from './api-client';
import { byId, describeError, el } from './dom';
import { tokenFromFragment } from './pairing';
import { describeStatus } from './status-line';
import {
  clearSubscriptionId,
  clearToken,
  readSubscriptionId,
  readToken,
  writeSubscriptionId,
  writeToken,
} from './token-store';
import { askView } from './views/ask-view';
import { chatView } from './views/chat-view';
import { memoriesView } from './views/memories-view';
import type { MessageAction, PageContext, PageView } from './views/page-context';
import { remindersView } from './views/reminders-view';
import { syncHistoryView } from './views/sync-history-view';
import { tasksView } from './views/tasks-view';
import { weekView } from './views/week-view';

/*
 * The phone page: sign in with the companion's token (or a pairing link), then four views —
 * Reminders, Week, Search, Chat — each in its own module under views/. This file owns the
 * session (token, push subscription), the tab bar and the status line. Plain DOM: it has to load
 * fast on a phone and be readable by anyone auditing what runs next to their vault.
 */

/** First and longest wait between tries to reach the companion again (doubling in between). */
const RECONNECT_FIRST_MS = 2_000;
const RECONNECT_MAX_MS = 30_000;
/** localStorage keys of the offline copies of the companion's answers (api-client.ts). */
const OFFLINE_PREFIX = 'cairn-offline:';

const offlineCache: ResponseCache = {
  read: (path) => localStorage.getItem(OFFLINE_PREFIX + path),
  write: (path, body) => localStorage.setItem(OFFLINE_PREFIX + path, body),
};

function clearOfflineCopies(): void {
  for (const key of Object.keys(localStorage)) {
    if (key.startsWith(OFFLINE_PREFIX)) localStorage.removeItem(key);
  }
}

const shell = {
  message: byId<HTMLDivElement>('message'),
  offline: byId<HTMLParagraphElement>('offline'),
  signIn: byId<HTMLElement>('sign-in'),
  signInForm: byId<HTMLFormElement>('sign-in-form'),
  tokenInput: byId<HTMLInputElement>('token'),
  signOut: byId<HTMLButtonElement>('sign-out'),
  home: byId<HTMLElement>('home'),
  tabs: byId<HTMLElement>('tabs'),
  status: byId<HTMLParagraphElement>('companion'),
  notificationState: byId<HTMLParagraphElement>('notification-state'),
  enableNotifications: byId<HTMLButtonElement>('enable-notifications'),
  testNotification: byId<HTMLButtonElement>('test-notification'),
};

type ViewName = 'reminders' | 'week' | 'ask' | 'chat' | 'memories' | 'sync' | 'tasks';
const VIEW_NAMES: readonly ViewName[] = [
  'reminders',
  'week',
  'ask',
  'chat',
  'memories',
  'sync',
  'tasks',
];

let api: CompanionApi | null = null;
let vaultName = '';
let messageTimer: ReturnType<typeof setTimeout> | undefined;
/** While the companion cannot be reached: the next try to reach it again. */
let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
let reconnectDelayMs = RECONNECT_FIRST_MS;

const context: PageContext = {
  api: () => api,
  vault: () => vaultName,
  zone: () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  say,
};

const views: Record<ViewName, PageView> = {
  reminders: remindersView(context),
  week: weekView(context),
  ask: askView(context),
  chat: chatView(context),
  memories: memoriesView(context),
  sync: syncHistoryView(context),
  tasks: tasksView(context),
};
let current: ViewName = 'reminders';

function say(text: string, tone: 'info' | 'error' = 'info', action?: MessageAction): void {
  clearTimeout(messageTimer);
  const parts: Node[] = [el('span', { class: 'message-text' }, text)];
  if (action) {
    const button = el('button', { type: 'button', class: 'message-action' }, action.label);
    button.addEventListener('click', () => {
      say('');
      action.run();
    });
    parts.push(button);
  }
  shell.message.replaceChildren(...parts);
  shell.message.dataset.tone = tone;
  shell.message.hidden = text === '';
  placeMessage();
  // Confirmations fade on their own (later when they offer an action); errors stay until the
  // next message.
  if (text !== '' && tone === 'info') {
    messageTimer = setTimeout(() => say(''), action ? 8000 : 6000);
  }
}

/**
 * Messages never cover controls: the stylesheet keeps them above the tab bar; in the chat
 * view the composer (whose height grows with the text) sits there too, so the message goes
 * above it.
 */
function placeMessage(): void {
  const composer =
    document.body.dataset.view === 'chat' ? document.getElementById('chat-form') : null;
  if (shell.message.hidden || composer === null || composer.getClientRects().length === 0) {
    shell.message.style.removeProperty('bottom');
    return;
  }
  const gap = window.innerHeight - composer.getBoundingClientRect().top;
  shell.message.style.bottom = `${Math.ceil(gap + 8)}px`;
}

async function start(): Promise<void> {
  // The page lives as long as the tab: these follow the composer for its whole life.
  window.addEventListener('resize', placeMessage);
  const composer = document.getElementById('chat-form');
  if (composer && typeof ResizeObserver === 'function') {
    new ResizeObserver(placeMessage).observe(composer);
  }
  const registration = registerServiceWorker();
  shell.signInForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const entered = shell.tokenInput.value.trim();
    if (entered === '') return;
    void writeToken(entered).then(() => signIn(entered, registration));
  });
  shell.signOut.addEventListener('click', () => void signOut(registration));
  shell.enableNotifications.addEventListener('click', () => void enableNotifications(registration));
  shell.testNotification.addEventListener('click', () => void sendTestNotification());
  for (const tab of shell.tabs.querySelectorAll<HTMLButtonElement>('button[data-view]')) {
    tab.addEventListener('click', () => void showView(tab.dataset.view as ViewName));
  }
  // Back from the background (a home-screen app is rarely reloaded): show what changed since.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && api) void refresh();
  });
  // A pairing link opened in a tab that already shows the page changes only the fragment:
  // no reload, so the link has to be read here as well as at start.
  window.addEventListener('hashchange', () => void pairFromFragment(registration));
  window.addEventListener('online', () => onlineAgain());

  if (await pairFromFragment(registration)) return;
  const token = await readToken();
  if (token) await signIn(token, registration);
  else showSignIn();
}

/** Signs in with the token in the address bar's fragment, if there is one; true if it did. */
async function pairFromFragment(
  registration: Promise<ServiceWorkerRegistration | null>,
): Promise<boolean> {
  const paired = tokenFromFragment(location.hash);
  if (!paired) return false;
  // Out of the address bar (and history) at once; it lives in IndexedDB from here on.
  history.replaceState(null, '', location.pathname);
  await writeToken(paired);
  await signIn(paired, registration);
  return true;
}

function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
    say(
      `Notifications are unavailable: the service worker did not start (${describeError(error)}).`,
      'error',
    );
    return null;
  });
}

function showSignIn(): void {
  shell.signIn.hidden = false;
  shell.home.hidden = true;
  shell.tabs.hidden = true;
  shell.signOut.hidden = true;
  shell.status.textContent = '';
  document.body.dataset.signedIn = 'false';
  shell.tokenInput.focus();
}

async function signIn(
  token: string,
  registration: Promise<ServiceWorkerRegistration | null>,
): Promise<void> {
  let reachedLast = true;
  const candidate = companionApi(token, fetch, {
    cache: offlineCache,
    reachability: (reachable) => {
      reachedLast = reachable;
      if (reachable) return;
      // Lost while signed in: say so and come back by itself.
      if (api === candidate) goOffline(token, registration);
    },
  });
  try {
    const status = await candidate.get<unknown>('/api/v1/status');
    api = candidate;
    vaultName = await readVaultName(candidate);
    say('');
    shell.signIn.hidden = true;
    shell.home.hidden = false;
    shell.tabs.hidden = false;
    shell.signOut.hidden = false;
    shell.tokenInput.value = '';
    document.body.dataset.signedIn = 'true';
    shell.status.textContent = describeStatus(status);
    if (!reachedLast) {
      // Answered from the offline copy: the companion is away.
      shell.status.textContent = 'Companion unreachable';
      goOffline(token, registration);
    } else if (shell.offline.hidden === false) {
      // Back after being away: answers are live again.
      shell.offline.hidden = true;
      clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      reconnectDelayMs = RECONNECT_FIRST_MS;
    }
    await Promise.all([showNotificationState(await registration), showView(current)]);
  } catch (error) {
    api = null;
    if (error instanceof CompanionApiError && error.status === 401) {
      await clearToken();
      clearOfflineCopies();
      shell.offline.hidden = true;
      showSignIn();
      say('The companion did not accept that token. Check it and try again.', 'error');
      return;
    }
    if (error instanceof CompanionApiError && error.status === 0) {
      // Away (asleep, restarting, another network): the token was not refused, so no sign-in
      // form; what was last loaded is shown, marked offline, until the companion is back.
      api = candidate;
      vaultName =
        offlineCache.read('/api/v1/phone/config') === null ? '' : await readVaultName(candidate);
      shell.signIn.hidden = true;
      shell.home.hidden = false;
      shell.tabs.hidden = false;
      shell.signOut.hidden = false;
      document.body.dataset.signedIn = 'true';
      shell.status.textContent = 'Companion unreachable';
      goOffline(token, registration);
      await showView(current).catch(() => undefined);
      return;
    }
    showSignIn();
    say(`Could not reach the companion: ${describeError(error)}`, 'error');
  }
}

/**
 * Shows the offline banner and tries to reach the companion again, waiting longer each time
 * (2 s doubling to 30 s), at once when the browser says it is online again; signs in afresh
 * (live lists, banner gone) when `/health` answers. One try is pending at a time.
 */
function goOffline(token: string, registration: Promise<ServiceWorkerRegistration | null>): void {
  shell.offline.hidden = false;
  shell.status.textContent = 'Companion unreachable';
  if (reconnectTimer !== undefined) return;
  const attempt = async (): Promise<void> => {
    reconnectTimer = undefined;
    const back = await fetch('/health', { cache: 'no-store' }).then(
      (response) => response.ok,
      () => false,
    );
    if (back) {
      await signIn(token, registration);
      return;
    }
    reconnectDelayMs = Math.min(reconnectDelayMs * 2, RECONNECT_MAX_MS);
    reconnectTimer = setTimeout(() => void attempt(), reconnectDelayMs);
  };
  reconnectTimer = setTimeout(() => void attempt(), reconnectDelayMs);
  onlineAgain = () => {
    if (reconnectTimer === undefined) return;
    clearTimeout(reconnectTimer);
    void attempt();
  };
}

/** What the browser's `online` event does: try at once while offline (set by goOffline). */
let onlineAgain: () => void = () => undefined;

/** The vault's name for `obsidian://` links; an older companion without the route gets ''. */
async function readVaultName(client: CompanionApi): Promise<string> {
  try {
    const config = await client.get<unknown>('/api/v1/phone/config');
    return isRecord(config) && typeof config.vault === 'string' ? config.vault : '';
  } catch {
    return '';
  }
}

/**
 * Forgets this phone: the push subscription (in the browser and at the companion, so no
 * reminder reaches a signed-out device) and the token. Each step is tried even if one before
 * it failed; what could not be done is said.
 */
async function signOut(registration: Promise<ServiceWorkerRegistration | null>): Promise<void> {
  const problems: string[] = [];
  const subscriptionId = await readSubscriptionId().catch(() => null);
  if (api && subscriptionId) {
    try {
      await api.delete(`/api/v1/push/subscriptions/${encodeURIComponent(subscriptionId)}`);
    } catch (error) {
      if (!(error instanceof CompanionApiError && error.status === 404)) {
        problems.push(`the companion still lists this device (${describeError(error)})`);
      }
    }
  }
  try {
    const subscription = await (await registration)?.pushManager.getSubscription();
    await subscription?.unsubscribe();
  } catch (error) {
    problems.push(`the browser kept its push subscription (${describeError(error)})`);
  }
  await clearSubscriptionId().catch(() => undefined);
  await clearToken();
  clearOfflineCopies();
  clearTimeout(reconnectTimer);
  reconnectTimer = undefined;
  shell.offline.hidden = true;
  api = null;
  vaultName = '';
  for (const view of Object.values(views)) view.reset();
  showSignIn();
  say(
    problems.length === 0
      ? 'Signed out. This device no longer receives reminders.'
      : `Signed out, but ${problems.join('; ')}.`,
    problems.length === 0 ? 'info' : 'error',
  );
}

/** Re-reads the status line and the view on screen. */
async function refresh(): Promise<void> {
  await Promise.all([refreshStatus(), views[current].show()]);
}

async function refreshStatus(): Promise<void> {
  if (!api) return;
  try {
    const status = await api.get<unknown>('/api/v1/status');
    // An offline copy is not the companion's state now.
    shell.status.textContent = shell.offline.hidden
      ? describeStatus(status)
      : 'Companion unreachable';
  } catch (error) {
    shell.status.textContent = `Companion unreachable (${describeError(error)})`;
  }
}

async function showView(name: ViewName): Promise<void> {
  if (!VIEW_NAMES.includes(name)) return;
  current = name;
  // A confirmation belongs to the view it was given in; an error stays until the next message.
  if (shell.message.dataset.tone !== 'error') say('');
  for (const view of VIEW_NAMES) {
    byId<HTMLElement>(`view-${view}`).hidden = view !== name;
  }
  for (const tab of shell.tabs.querySelectorAll<HTMLButtonElement>('button[data-view]')) {
    tab.setAttribute('aria-selected', String(tab.dataset.view === name));
  }
  document.body.dataset.view = name;
  placeMessage();
  // The status line follows indexing (e.g. semantic search getting ready) as the user moves.
  await Promise.all([views[name].show(), refreshStatus()]);
}

async function showNotificationState(
  registration: ServiceWorkerRegistration | null,
): Promise<void> {
  shell.enableNotifications.hidden = true;
  shell.testNotification.hidden = true;
  if (!registration || !('PushManager' in window) || !('Notification' in window)) {
    shell.notificationState.textContent = window.isSecureContext
      ? 'This browser cannot receive push notifications. On iPhone, add Cairn to the home screen first (Share → Add to Home Screen), then open it from there.'
      : 'Notifications need HTTPS. Open the companion through its https:// address (see the README: --tls-cert, Caddy or Tailscale).';
    return;
  }
  if (Notification.permission === 'denied') {
    shell.notificationState.textContent =
      'Notifications are blocked for this site. Allow them in the browser’s site settings.';
    return;
  }
  const subscription = await registration.pushManager.getSubscription();
  if (subscription && Notification.permission === 'granted') {
    shell.notificationState.textContent = 'This device receives reminders.';
    shell.testNotification.hidden = false;
  } else {
    shell.notificationState.textContent = 'This device does not receive reminders yet.';
    shell.enableNotifications.hidden = false;
  }
}

async function enableNotifications(
  registration: Promise<ServiceWorkerRegistration | null>,
): Promise<void> {
  const ready = await registration;
  if (!api || !ready) return;
  try {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      say('Notifications were not allowed, so reminders cannot reach this device.', 'error');
      await showNotificationState(ready);
      return;
    }
    const key = await api.get<{ public_key: string }>('/api/v1/push/key');
    const subscription = await ready.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: base64UrlToBytes(key.public_key),
    });
    const device = await api.post<{ id: string }>('/api/v1/push/subscriptions', {
      ...subscription.toJSON(),
      name: deviceName(),
    });
    await writeSubscriptionId(device.id);
    say('Notifications are on for this device.');
  } catch (error) {
    say(`Could not turn on notifications: ${describeError(error)}`, 'error');
  }
  await showNotificationState(ready);
}

async function sendTestNotification(): Promise<void> {
  if (!api) return;
  try {
    const result = await api.post<{ sent: number; failed: number }>('/api/v1/push/test');
    say(
      `Test notification sent to ${result.sent} device(s)${result.failed ? `, ${result.failed} failed` : ''}.`,
    );
  } catch (error) {
    say(`Could not send a test notification: ${describeError(error)}`, 'error');
  }
}

function deviceName(): string {
  const agent = navigator.userAgent;
  if (/iPhone|iPad/.test(agent)) return 'iPhone or iPad';
  if (/Android/.test(agent)) return 'Android phone';
  return 'Browser';
}

function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

void start();
