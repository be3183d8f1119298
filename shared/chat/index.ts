// Public surface of shared/chat.
export * from './tool-schemas';
export * from './intent-router';
export * from './ports';
export * from './chat-engine';
export { DEDUP_WINDOW_MS } from './recent-writes';
export { CitationMarkerFilter } from './citation-markers';
