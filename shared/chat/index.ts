// Public surface of shared/chat; filled in as the area grows.
export {};
