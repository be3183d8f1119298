// Public surface of shared/digest: the weekly digest note and its schedule (docs/memory-digest-calendar.md).
export {
  DEFAULT_DIGEST_FOLDER,
  buildDigest,
  digestPath,
  noteLink,
  weekMemoriesByCategory,
} from './digest-builder';
export type {
  Digest,
  DigestCompletion,
  DigestInput,
  DigestMemory,
  DigestNote,
} from './digest-builder';
export {
  DEFAULT_DIGEST_SCHEDULE,
  DigestScheduleError,
  digestSlot,
  latestDueWeek,
  nextDigestSlot,
  parseDigestSchedule,
} from './digest-schedule';
export type { DigestSchedule } from './digest-schedule';
