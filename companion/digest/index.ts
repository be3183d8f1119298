// Public surface of companion/digest: the weekly digest (docs/memory-digest-calendar.md).
export { DigestService } from './digest-service';
export type { DigestOutcome, DigestServiceDeps, DigestSources } from './digest-service';
export { DigestStore } from './digest-store';
export { registerDigestRoutes } from './digest-routes';
