// Public surface of shared/markdown: the note model (front matter, title/tags/aliases, slugs, note files).
export {
  describeFrontMatterError,
  parseFrontMatter,
  stringifyNoteFile,
  updateFrontMatter,
  type FrontMatterError,
  type FrontMatterParse,
  type FrontMatterUpdate,
} from './front-matter';
export { FrontMatterValueError } from './yaml-values';
export {
  extractNoteMeta,
  fileStem,
  firstHeading,
  noteMetaWarnings,
  readNoteMeta,
  type NoteMeta,
  type NoteMetaInput,
  type NoteMetaWarning,
} from './note-meta';
export { dedupeCaseInsensitive, findInlineTags, isValidTag, normalizeTag } from './tags';
export { caseInsensitiveExists, slugify, uniqueNotePath, MAX_SLUG_LENGTH } from './slug';
export { appendToNoteBody, buildNoteFile, type NewNote } from './note-file';
export { isUuid, newNoteId, newShortId, type RandomBytes } from './note-id';
export { portableNameProblem, MAX_NAME_BYTES, WINDOWS_RESERVED_STEM } from './portable-name';
export { plainInline } from './plain-inline';
