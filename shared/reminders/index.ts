// Public surface of shared/reminders: the `@remind(...)` grammar, natural-language times,
// normalisation, inline and note reminders, and recurrence with wall time across DST.
export {
  MAX_COUNT,
  MAX_INTERVAL,
  MAX_OCCURRENCES,
  MAX_RRULE_LENGTH,
  RecurrenceInputError,
  nextOccurrences,
  occurrencesBetween,
  previousOccurrence,
  validateRrule,
} from './recurrence';
export type { RuleCheck } from './recurrence';
export { MAX_PHRASE_LENGTH, parseEveryPhrase } from './every-phrase';
export { CUSTOM_RULE_TEXT, describeRule } from './rule-words';
export type { EveryPhraseResult } from './every-phrase';
export {
  MAX_ZONE_OFFSET_MS,
  formatInZone,
  formatWall,
  instantToWall,
  isValidZone,
  parseLocalDateTime,
  wallFromParts,
  wallToInstant,
  zoneOffsetMs,
} from './local-time';
export type { WallTimeResult } from './local-time';
export { INLINE_RECURRENCE_START, scheduleStartInstant } from './reminder-schedule';
// ReminderStatus is the protocol's (shared/protocol/reminders.ts), exported from there.
export type { ReminderSchedule, TaskState } from './reminder-schedule';
export { REMIND_OPEN, documentLines, findRemindTokensInLine } from './remind-token';
export type { DocumentLine, LineRemindToken } from './remind-token';
export { MAX_REMIND_TEXT_LENGTH, classifyRemindText } from './remind-value';
export type { RemindValue } from './remind-value';
export {
  MAX_NATURAL_TEXT_LENGTH,
  readsAsNaturalTime,
  resolveNaturalTime,
  splitTrailingZone,
} from './natural-time';
export type { NaturalTimeOptions, NaturalTimeResult } from './natural-time';
export { BLOCK_ID_PREFIX, findBlockId, findBlockIds, newBlockId } from './block-id';
export type { LineBlockId } from './block-id';
export { applyEdits, normaliseRemindLine } from './normalise-line';
export type { LineEdit, NormaliseLineOptions, NormalisedLine } from './normalise-line';
export { findForeignTokens } from './foreign-syntax';
export type { ForeignSyntax, ForeignToken } from './foreign-syntax';
export { ALL_INLINE_SYNTAXES, findInlineReminders, taskStateOf } from './inline-reminders';
export type {
  FindInlineRemindersOptions,
  InlineReminder,
  InlineRemindersResult,
  InlineSyntax,
  InlineSyntaxes,
  ReminderProblem,
  ReminderProblemKind,
} from './inline-reminders';
export { readReminderNote, reminderNoteFields } from './reminder-note';
export type {
  ReadReminderNoteOptions,
  ReminderNote,
  ReminderNoteProblem,
  ReminderNoteRead,
} from './reminder-note';
export { checkSchedule, describeNextFire, nextFire } from './next-fire';
export type { ReminderFireState } from './next-fire';
export { noteDeepLink, reminderDeepLink } from './deep-link';
export type { DeepLinkTarget } from './deep-link';
export { buildReminderNoteFile } from './reminder-note-file';
export { previewRemindText } from './remind-preview';
export type { RemindPreview, RemindPreviewOptions } from './remind-preview';
