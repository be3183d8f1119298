import type { FastifyInstance } from 'fastify';
import { HealthResponse } from '../../shared/protocol/status';

/** `GET /health`: liveness for monitors and the CLI's start-up wait. No token, no details. */
export function registerHealthRoute(app: FastifyInstance): void {
  app.get(
    '/health',
    { config: { public: true }, schema: { response: { 200: HealthResponse } } },
    async (): Promise<HealthResponse> => ({ status: 'ok' }),
  );
}
