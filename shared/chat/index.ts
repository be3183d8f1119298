// Public surface of shared/chat.
export * from './tool-schemas';
