// Public surface of shared/tasks: scheduled tasks as Markdown files (docs/tasks.md).
export {
  ACTION_INPUT_KEY,
  DEFAULT_TASKS_FOLDER,
  MAX_TASK_INPUT_CHARS,
  MAX_TASK_NAME_CHARS,
  RUNS_NOTE_SUFFIX,
  TASK_ACTIONS,
  TASK_DELIVERIES,
  TASK_PERIODS,
  TASK_WINDOWS,
  TASK_WINDOW_MS,
  buildTaskFile,
  checkTaskFields,
  defaultRunsNotePath,
  readTaskFile,
  taskNameOf,
  taskNameProblem,
} from './task-file';
export type {
  NewTaskFile,
  TaskAction,
  TaskCheck,
  TaskCheckContext,
  TaskDefinition,
  TaskDelivery,
  TaskFields,
  TaskFileRead,
  TaskFilters,
  TaskPeriod,
  TaskProblem,
  TaskWindow,
  TaskSchedule,
} from './task-file';
export { checkCron, cronLatestAtOrBefore, cronNextAfter } from './cron-schedule';
export type { CronCheck } from './cron-schedule';
export {
  emptyRunsNote,
  firstLine,
  hasRunEntry,
  insertRunEntry,
  renderRunEntry,
  runMarker,
  slotHeading,
} from './runs-note';
export type { TaskRunResult } from './runs-note';
export { describeTaskSchedule } from './schedule-words';
