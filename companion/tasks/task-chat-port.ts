import { ChatPortError } from '../../shared/chat/ports';
import type { ScheduledTaskView, TaskCreator } from '../../shared/chat/ports';
import { ApiHttpError } from '../http/api-error';
import { VaultWriteError } from '../vault/atomic-write';
import type { TaskService } from './task-service';

/**
 * The chat's and MCP's `create_task` over the task service: the same checks and file as
 * `POST /api/v1/tasks`, its 400s as VALIDATION_ERROR naming the field.
 */
export function taskChatPort(service: TaskService): TaskCreator {
  return {
    async create(args): Promise<ScheduledTaskView> {
      try {
        const task = await service.create(args);
        return {
          id: task.id,
          name: task.name,
          path: task.path,
          timezone: task.timezone,
          next_run: task.next_run,
        };
      } catch (error) {
        if (error instanceof ApiHttpError || error instanceof VaultWriteError) {
          const code =
            error.code === 'CONFLICT' || error.code === 'NOT_FOUND'
              ? error.code
              : 'VALIDATION_ERROR';
          throw new ChatPortError(code, error.message, error.field);
        }
        throw error;
      }
    },
  };
}
