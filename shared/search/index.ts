// Public surface of shared/search; filled in as the area grows.
export {};
