import type { MemoryStore } from '../../shared/chat/ports';
import type { MemoryService } from '../memory';

/**
 * The memory tools (chat, MCP, the OpenAI route) over the same MemoryService as
 * `/api/v1/memories`. The service's errors go to the tool runner as they are; it maps them
 * (http/tool-error.ts, `companionToolError`).
 */
export function memoryToolPort(service: MemoryService): MemoryStore {
  return {
    list: async () => (await service.list()).memories,
    remember: (text) => service.remember(text),
    forget: (id) => service.forget(id),
  };
}
