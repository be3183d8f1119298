// Public surface of shared/reminders; filled in as the area grows.
export {};
