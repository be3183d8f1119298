// Public surface of companion/memory/: what other features use.
export { MemoryService } from './memory-service';
export { memoryModelConfigFromEnv } from './memory-model-config';
