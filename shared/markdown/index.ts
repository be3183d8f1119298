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
  noteMetaWarnings,
  readNoteMeta,
  type NoteMeta,
  type NoteMetaInput,
  type NoteMetaWarning,
} from './note-meta';
export { findInlineTags, isValidTag } from './tags';
