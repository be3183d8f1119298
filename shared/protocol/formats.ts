import { Type } from '@sinclair/typebox';
import type { StringOptions } from '@sinclair/typebox';

/*
 * String formats as `pattern`s rather than JSON Schema `format`s: TypeBox's `Value.Check` rejects
 * every unregistered format, and registering them is a global side effect on a registry the
 * plugin and companion share with their dependencies. Patterns behave the same under Ajv
 * (Fastify) and TypeBox. The `description` of each doubles as the noun used in error messages
 * (see validate.ts), so it is phrased as "a/an …".
 *
 * Patterns check shape, not calendars: `2026-02-30T09:00` passes here and is rejected by the
 * handler that turns it into an instant (luxon), with the same error envelope.
 */

const DATE = '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])';
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?';
const OFFSET = '(?:Z|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)';

/** A calendar date, `YYYY-MM-DD`. */
export const IsoDate = (options: StringOptions = {}) =>
  Type.String({ pattern: `^${DATE}$`, description: 'a date as YYYY-MM-DD', ...options });

/** An instant with its UTC offset, e.g. `2026-11-23T17:00:00+01:00` or `…Z`. */
export const IsoInstant = (options: StringOptions = {}) =>
  Type.String({
    pattern: `^${DATE}T${TIME}${OFFSET}$`,
    description: 'an ISO 8601 date-time with offset, e.g. 2026-11-23T17:00:00+01:00',
    ...options,
  });

/**
 * A wall-clock date-time, with or without offset (`2026-11-23T17:00`, `2026-11-23 17:00`,
 * `2026-11-23T17:00:00+01:00`). Without an offset it is read in the reminder's or vault's zone.
 */
export const IsoLocalOrInstant = (options: StringOptions = {}) =>
  Type.String({
    pattern: `^${DATE}[T ]${TIME}${OFFSET}?$`,
    description: 'an ISO 8601 date-time, local (2026-11-23T17:00) or with offset',
    ...options,
  });

/** A date or a date-time, for range filters (`from`/`to`). */
export const IsoDateOrDateTime = (options: StringOptions = {}) =>
  Type.String({
    pattern: `^${DATE}(?:[T ]${TIME}${OFFSET}?)?$`,
    description: 'a date (YYYY-MM-DD) or an ISO 8601 date-time',
    ...options,
  });

/** An IANA zone name (`Europe/Berlin`, `UTC`); whether the zone exists is checked with luxon. */
export const IanaZone = (options: StringOptions = {}) =>
  Type.String({
    pattern: '^(?:UTC|[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){1,2})$',
    maxLength: 64,
    description: 'an IANA time zone name such as Europe/Berlin',
    ...options,
  });

/**
 * An RFC 5545 RRULE value, with or without the `RRULE:` prefix, that names a FREQ. The full
 * grammar is checked by shared/reminders' `validateRrule`.
 */
export const RruleText = (options: StringOptions = {}) =>
  Type.String({
    pattern: '^(?:RRULE:)?(?:[A-Z]+=[^;\\s]+;)*FREQ=[A-Z]+(?:;[A-Z]+=[^;\\s]+)*$',
    maxLength: 1000,
    description: 'an RRULE such as FREQ=WEEKLY;BYDAY=MO',
    ...options,
  });

/** Text that is not empty and not only white space. */
/**
 * Text with something in it, and no NUL anywhere: a NUL byte would land raw in a Markdown file
 * (a reminder title, a memory) that editors and sync tools treat as binary.
 */
export const NonBlank = (options: StringOptions = {}) =>
  Type.String({
    minLength: 1,
    // Linear on long text: a look-ahead for NUL, then the first non-space.
    pattern: '^(?![\\s\\S]*\\x00)[\\s\\S]*?\\S',
    description: 'non-blank text without NUL characters',
    ...options,
  });

/** A vault-relative path: forward slashes, no leading slash, no `..` segment. */
export const VaultPath = (options: StringOptions = {}) =>
  Type.String({
    pattern: '^(?!/)(?!.*(?:^|/)\\.\\.(?:/|$))[^\\\\\\x00]+$',
    maxLength: 1024,
    description: 'a vault-relative path without ".." segments',
    ...options,
  });

/** A tag without its leading `#` (nested tags use `/`). */
export const TagName = (options: StringOptions = {}) =>
  Type.String({
    pattern: '^#?[^\\s#,]+$',
    maxLength: 200,
    description: 'a tag such as travel or project/cairn',
    ...options,
  });

/** An opaque pagination cursor handed out by a previous page. */
export const Cursor = () =>
  Type.String({ minLength: 1, maxLength: 512, description: 'a cursor from a previous page' });
