import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Takes a reply over as a Server-Sent Events stream (the chat route and the OpenAI-compatible
 * route) and returns the raw response to write events to. Once hijacked, Fastify writes nothing
 * more, so the headers its hooks set (helmet, CORS, rate limits) are carried over by hand.
 */
export function startEventStream(reply: FastifyReply): ServerResponse {
  const response = reply.raw;
  reply.hijack();
  const carried = Object.entries(reply.getHeaders()).filter(
    (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
  );
  response.writeHead(200, {
    ...Object.fromEntries(carried),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx and some reverse proxies buffer responses unless told not to.
    'x-accel-buffering': 'no',
  });
  return response;
}
