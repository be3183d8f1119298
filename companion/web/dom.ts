import { CompanionApiError } from './api-client';

/*
 * Small DOM helpers for the phone page. Every text goes in through `textContent` (never
 * innerHTML): titles, paths and excerpts come from the user's notes.
 */

export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`phone page: #${id} is missing from index.html`);
  return element as T;
}

type Child = Node | string | null | undefined | false;

/** `el('li', { class: 'row' }, 'text', child)`: attributes are set as attributes, text as text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** A line in a list that is a message, not an entry ("Nothing missed."). */
export function noticeItem(text: string, tone: 'muted' | 'error' = 'muted'): HTMLLIElement {
  return el('li', { class: `notice ${tone}` }, text);
}

export function describeError(error: unknown): string {
  if (error instanceof CompanionApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** "Thu 26 Nov, 17:00" in the phone's locale and zone. */
export function formatWhen(iso: string): string {
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

/** "17:00" in the phone's locale and zone. */
export function formatTime(iso: string): string {
  const instant = Date.parse(iso);
  if (!Number.isFinite(instant)) return '';
  return new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(instant);
}
