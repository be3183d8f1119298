// Public surface of shared/memory: the `Cairn/Memory.md` reader and line-level writers.
export {
  MEMORY_BLOCK_PREFIX,
  MEMORY_PATH,
  MEMORY_TEXT_MAX_CHARS,
  MemoryInputError,
  addMemory,
  cleanFact,
  emptyMemoryFile,
  normaliseFact,
  parseMemoryFile,
  memoryLinkBody,
  rankMemories,
  recallMemories,
  removeMemory,
  sameSubject,
  setMemoryCategory,
  toMemoryItem,
} from './memory-file';
export type {
  AddMemoryResult,
  Memory,
  MemoryFile,
  MemoryProblem,
  MemoryProblemKind,
  ReplacedMemory,
} from './memory-file';
export {
  MEMORY_CATEGORIES,
  MEMORY_CATEGORY_LABELS,
  MEMORY_TAG_PREFIX,
  categoryFromWords,
  categoryTag,
  classifyMemoryByRules,
  isMemoryCategory,
  parseMemoryCategory,
  splitCategoryTag,
} from './memory-category';
export type { MemoryCategory } from './memory-category';
export { classifyMemoryWithModel } from './memory-category-llm';
export type { CategoryAnswer, MemoryCategoryModelOptions } from './memory-category-llm';
export { MemoryImportError, memoryImportKind, parseMemoryImport } from './memory-import';
export type { ImportedLine, MemoryImportKind } from './memory-import';
export { summarizeMemoriesWithModel } from './memory-summary-llm';
export { MemoryModelError, chatOnce } from './memory-model';
export type { MemoryModelOptions } from './memory-model';
export { summarizeLinkWithModel } from './link-summary-llm';
