// Public surface of companion/memory/: what other features use.
export type { MemoryService } from './memory-service';
