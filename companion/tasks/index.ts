// Public surface of companion/tasks: scheduled tasks (docs/tasks.md).
export { TaskFeature, TASK_SCHEDULER_TABLES } from './task-feature';
export type { TaskFeatureOptions } from './task-feature';
export { TaskService } from './task-service';
export { registerTaskRoutes } from './task-routes';
export { VaultTaskActions, TaskActionError } from './task-actions';
export type { TaskActions } from './task-actions';
export { TaskRunStore } from './run-store';
export type { TaskRunRecord, TaskRunStatus } from './run-store';
export { VaultTaskSource } from './vault-task-source';
export type { InvalidTaskFile } from './vault-task-source';
export { RUNNER_ID } from './task-runner';
export { taskChatPort } from './task-chat-port';
export { BUILTIN_DIGEST_PATH, digestCron, seedBuiltinDigest } from './builtin-digest';
