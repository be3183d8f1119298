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
  recallMemories,
  removeMemory,
  sameSubject,
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
