import { CompanionApiError, companionApi, isRecord } from './api-client';
import type { CompanionApi } from './api-client';
import { tokenFromFragment } from './pairing';
import { clearToken, readToken, writeToken } from './token-store';

/*
 * The phone page: sign in with the companion's token (or a pairing link), allow notifications,
 * see upcoming and missed reminders, search and ask. Plain DOM: it has to load fast on a phone
 * and be readable by anyone auditing what runs next to their vault.
 */

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`phone page: #${id} is missing from index.html`);
  return element as T;
};

const view = {
  message: $<HTMLParagraphElement>('message'),
  signIn: $<HTMLElement>('sign-in'),
  signInForm: $<HTMLFormElement>('sign-in-form'),
  tokenInput: $<HTMLInputElement>('token'),
  signOut: $<HTMLButtonElement>('sign-out'),
  home: $<HTMLElement>('home'),
  notificationState: $<HTMLParagraphElement>('notification-state'),
  enableNotifications: $<HTMLButtonElement>('enable-notifications'),
  testNotification: $<HTMLButtonElement>('test-notification'),
  upcoming: $<HTMLUListElement>('upcoming'),
  missed: $<HTMLUListElement>('missed'),
  searchForm: $<HTMLFormElement>('search-form'),
  query: $<HTMLInputElement>('query'),
  answer: $<HTMLDivElement>('answer'),
  results: $<HTMLUListElement>('results'),
  companion: $<HTMLParagraphElement>('companion'),
};

let api: CompanionApi | null = null;

function say(text: string, tone: 'info' | 'error' = 'info'): void {
  view.message.textContent = text;
  view.message.dataset.tone = tone;
  view.message.hidden = text === '';
}

function describeError(error: unknown): string {
  if (error instanceof CompanionApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

async function start(): Promise<void> {
  const registration = registerServiceWorker();
  const paired = tokenFromFragment(location.hash);
  if (paired) {
    // Out of the address bar (and history) at once; it lives in IndexedDB from here on.
    history.replaceState(null, '', location.pathname);
    await writeToken(paired);
  }
  const token = await readToken();
  if (token) await signIn(token, registration);
  else showSignIn();

  view.signInForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const entered = view.tokenInput.value.trim();
    if (entered === '') return;
    void writeToken(entered).then(() => signIn(entered, registration));
  });
  view.signOut.addEventListener('click', () => {
    void clearToken().then(() => {
      api = null;
      showSignIn();
      say('Signed out.');
    });
  });
  view.enableNotifications.addEventListener('click', () => void enableNotifications(registration));
  view.testNotification.addEventListener('click', () => void sendTestNotification());
  view.searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    void (submitter?.value === 'ask' ? ask() : search());
  });
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
  view.signIn.hidden = false;
  view.home.hidden = true;
  view.signOut.hidden = true;
  view.tokenInput.focus();
}

async function signIn(
  token: string,
  registration: Promise<ServiceWorkerRegistration | null>,
): Promise<void> {
  const candidate = companionApi(token);
  try {
    const status = await candidate.get<unknown>('/api/v1/status');
    api = candidate;
    say('');
    view.signIn.hidden = true;
    view.home.hidden = false;
    view.signOut.hidden = false;
    view.tokenInput.value = '';
    view.companion.textContent = describeStatus(status);
    await Promise.all([showNotificationState(await registration), loadUpcoming(), loadMissed()]);
  } catch (error) {
    if (error instanceof CompanionApiError && error.status === 401) {
      await clearToken();
      showSignIn();
      say('The companion did not accept that token. Check it and try again.', 'error');
      return;
    }
    showSignIn();
    say(`Could not reach the companion: ${describeError(error)}`, 'error');
  }
}

function describeStatus(status: unknown): string {
  if (!isRecord(status)) return '';
  const index = isRecord(status.index) ? status.index : {};
  const files = typeof index.files === 'number' ? index.files : 0;
  const pending = typeof index.pending === 'number' ? index.pending : 0;
  const version = typeof status.version === 'string' ? status.version : '?';
  const indexing = pending > 0 ? `, ${pending} waiting to be indexed` : '';
  return `Companion ${version}: ${files} files indexed${indexing}.`;
}

async function showNotificationState(
  registration: ServiceWorkerRegistration | null,
): Promise<void> {
  view.enableNotifications.hidden = true;
  view.testNotification.hidden = true;
  if (!registration || !('PushManager' in window) || !('Notification' in window)) {
    view.notificationState.textContent = window.isSecureContext
      ? 'This browser cannot receive push notifications. On iPhone, add Cairn to the home screen first (Share → Add to Home Screen), then open it from there.'
      : 'Notifications need HTTPS. Open the companion through its https:// address (see the README: --tls-cert, Caddy or Tailscale).';
    return;
  }
  if (Notification.permission === 'denied') {
    view.notificationState.textContent =
      'Notifications are blocked for this site. Allow them in the browser’s site settings.';
    return;
  }
  const subscription = await registration.pushManager.getSubscription();
  if (subscription && Notification.permission === 'granted') {
    view.notificationState.textContent = 'This device receives reminders.';
    view.testNotification.hidden = false;
  } else {
    view.notificationState.textContent = 'This device does not receive reminders yet.';
    view.enableNotifications.hidden = false;
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
    await api.post('/api/v1/push/subscriptions', {
      ...subscription.toJSON(),
      name: deviceName(),
    });
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

interface ReminderView {
  id: string;
  title: string;
  path: string;
  next_fire?: string | null;
  due?: string;
}

interface MissedView {
  title: string;
  path: string;
  occurrence: string | null;
  reason: string;
  detail?: string;
}

async function loadUpcoming(): Promise<void> {
  await fillList(
    view.upcoming,
    async (client) => {
      const body = await client.get<{ reminders: ReminderView[] }>(
        '/api/v1/reminders?status=active&limit=50',
      );
      const upcoming = body.reminders
        .filter((reminder) => typeof reminder.next_fire === 'string')
        .sort((a, b) => Date.parse(a.next_fire ?? '') - Date.parse(b.next_fire ?? ''));
      return upcoming.map((reminder) =>
        listItem(reminder.title, formatWhen(reminder.next_fire ?? ''), reminder.path),
      );
    },
    'Nothing coming up.',
  );
}

async function loadMissed(): Promise<void> {
  await fillList(
    view.missed,
    async (client) => {
      const body = await client.get<{ missed: MissedView[] }>('/api/v1/reminders/missed?limit=50');
      return body.missed.map((missed) =>
        listItem(
          missed.title,
          missed.occurrence
            ? `missed ${formatWhen(missed.occurrence)}`
            : (missed.detail ?? 'needs attention'),
          missed.path,
        ),
      );
    },
    'Nothing missed.',
  );
}

async function fillList(
  list: HTMLUListElement,
  load: (client: CompanionApi) => Promise<HTMLLIElement[]>,
  empty: string,
): Promise<void> {
  list.replaceChildren();
  if (!api) return;
  try {
    const items = await load(api);
    list.replaceChildren(...(items.length > 0 ? items : [noticeItem(empty)]));
  } catch (error) {
    const text =
      error instanceof CompanionApiError && error.status === 404
        ? 'This companion does not schedule reminders.'
        : `Could not load: ${describeError(error)}`;
    list.replaceChildren(noticeItem(text));
  }
}

/** A line in a list that is a message, not an entry ("Nothing missed."). */
function noticeItem(text: string): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'muted';
  item.textContent = text;
  return item;
}

function listItem(title: string, when?: string, where?: string): HTMLLIElement {
  const item = document.createElement('li');
  const titleEl = document.createElement('span');
  titleEl.className = 'title';
  titleEl.textContent = title;
  item.append(titleEl);
  for (const [cls, text] of [
    ['when', when],
    ['where', where],
  ] as const) {
    if (!text) continue;
    const line = document.createElement('span');
    line.className = cls;
    line.textContent = text;
    item.append(line);
  }
  return item;
}

interface CitationView {
  title: string;
  path: string;
  heading?: string;
  page?: number;
  excerpt?: string;
}

function citationItem(citation: CitationView): HTMLLIElement {
  const where = citation.page
    ? `${citation.path}, page ${citation.page}`
    : citation.heading
      ? `${citation.path} › ${citation.heading}`
      : citation.path;
  return listItem(citation.title, citation.excerpt, where);
}

async function search(): Promise<void> {
  const query = view.query.value.trim();
  if (!api || query === '') return;
  view.answer.hidden = true;
  try {
    const body = await api.get<{ results: { citation: CitationView }[] }>(
      `/api/v1/search?q=${encodeURIComponent(query)}&limit=10`,
    );
    view.results.replaceChildren(
      ...(body.results.length > 0
        ? body.results.map((result) => citationItem(result.citation))
        : [noticeItem('No notes match.')]),
    );
  } catch (error) {
    view.results.replaceChildren(noticeItem(`Search failed: ${describeError(error)}`));
  }
}

async function ask(): Promise<void> {
  const question = view.query.value.trim();
  if (!api || question === '') return;
  try {
    const body = await api.post<{ answer: string; citations: CitationView[] }>('/api/v1/answer', {
      question,
    });
    view.answer.textContent = body.answer;
    view.answer.hidden = false;
    view.results.replaceChildren(...body.citations.map(citationItem));
  } catch (error) {
    view.answer.hidden = true;
    view.results.replaceChildren(noticeItem(`Asking failed: ${describeError(error)}`));
  }
}

function formatWhen(iso: string): string {
  const instant = Date.parse(iso);
  if (!Number.isFinite(instant)) return '';
  return new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(instant);
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
