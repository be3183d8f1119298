// Public surface of shared/chat.
export * from './tool-schemas';
export * from './intent-router';
export * from './ports';
export * from './chat-engine';
export { DEDUP_WINDOW_MS, InMemoryRecentWrites } from './recent-writes';
export type { RecentWritesStore } from './recent-writes';
export { CitationMarkerFilter } from './citation-markers';
export { ExtractiveAnswerer } from './extractive-answerer';
export { OllamaRouter, DEFAULT_ROUTING_TIMEOUT_MS } from './ollama-router';
export { OllamaPhraser, DEFAULT_PHRASING_TIMEOUT_MS } from './ollama-phraser';
export * from './ollama-http';
export * from './conversation-file';
