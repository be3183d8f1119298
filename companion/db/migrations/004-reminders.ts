import type { Migration } from '../migrate';

/** Reserved: reminder plan and delivery log; filled in by the scheduler. */
export const reminderTables: Migration = {
  version: 4,
  name: 'reminders',
  up: '',
};
