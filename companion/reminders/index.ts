// Public surface of the companion's reminder scheduler.
export { ReminderScheduler, MISSED_PER_REMINDER, SYNC_LAG_MS } from './scheduler';
export type { MissedItem, SchedulerOptions } from './scheduler';
export type {
  CronFireSchedule,
  ReminderDefinition,
  FireSchedule,
  ScheduledDefinition,
  UnresolvedReminder,
} from './reminder-definition';
export type { DeliveryTables } from './delivery-log';
export type { ReminderSource } from './reminder-source';
export { InMemoryReminderSource } from './reminder-source';
export type { DeliveryOutcome, ReminderDeliverer, ReminderDelivery } from '../push/delivery-port';
export { MAX_DELIVERY_ATTEMPTS } from './retry-policy';
export type { TimerHandle, TimerPort } from './timer';
export { MAX_SLEEP_MS, nodeTimer } from './timer';
export { registerMissedRoute } from './missed-routes';
export type { OccurrenceAction } from './fire-times';
export type { ReminderPlan, ReminderService } from './reminder-service';
export { ReadOnlyReminderPlan } from './read-only-plan';
