// Public surface of shared/protocol; filled in as the area grows.
export {};
