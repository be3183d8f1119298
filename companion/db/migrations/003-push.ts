import type { Migration } from '../migrate';

/** Reserved: push subscriptions and VAPID keys; filled in by the push area. */
export const pushTables: Migration = {
  version: 3,
  name: 'push',
  up: '',
};
