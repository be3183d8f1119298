// Public surface of shared/markdown; filled in as the area grows.
export {};
