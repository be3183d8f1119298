import type { MemoryStore } from '../../shared/chat/ports';
import type { MemoryService } from '../memory';
import { asChatPort } from './port-errors';

/** Chat's memory tools over the same MemoryService as `/api/v1/memories`. */
export function memoryChatPort(service: MemoryService): MemoryStore {
  return {
    list: () => asChatPort(async () => (await service.list()).memories),
    remember: (text) => asChatPort(() => service.remember(text)),
    forget: (id) => asChatPort(() => service.forget(id)),
  };
}
