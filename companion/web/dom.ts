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

/**
 * "Today, 17:00", "Tomorrow, 09:30", "Wed 2 Dec, 11:00" (with the year when it is not this
 * year), in the phone's locale and zone, the way reminder apps say when.
 */
export function formatWhen(iso: string, now: number = Date.now()): string {
  const instant = Date.parse(iso);
  if (!Number.isFinite(instant)) return '';
  const time = formatTime(iso);
  const day = localDay(instant);
  const today = localDay(now);
  const names: Record<number, string> = { [-1]: 'Yesterday', 0: 'Today', 1: 'Tomorrow' };
  const name = names[day - today];
  if (name !== undefined) return `${name}, ${time}`;
  const sameYear = new Date(instant).getFullYear() === new Date(now).getFullYear();
  const date = new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  }).format(instant);
  return `${date}, ${time}`;
}

/** "17:00" / "5:00 PM" in the phone's locale and zone. */
export function formatTime(iso: string): string {
  const instant = Date.parse(iso);
  if (!Number.isFinite(instant)) return '';
  return new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' }).format(instant);
}

/** Days since 1970-01-01 of the phone's local calendar date at `instant`. */
function localDay(instant: number): number {
  const date = new Date(instant);
  return Math.round(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / 86_400_000);
}

const SVG = 'http://www.w3.org/2000/svg';

/** A stroked 24 × 24 line icon from fixed path data (never user data). */
export function lineIcon(paths: readonly string[]): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'line-icon');
  for (const d of paths) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}
