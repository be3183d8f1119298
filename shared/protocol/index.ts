// Public surface of shared/protocol: the companion's HTTP contract (companion/README.md) as TypeBox
// schemas that are at once Fastify's validators and the TypeScript types.
export * from './formats';
export * from './citation';
export * from './errors';
export * from './validate';
export * from './status';
export * from './search';
export * from './reminders';
export * from './notes';
export * from './push';
export * from './embeddings';
export * from './chat';
export * from './phone';
export * from './audit';
export * from './openai-chat';
export * from './memories';
export * from './calendar';
export * from './sync';
