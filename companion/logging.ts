import pino from 'pino';
import type { DestinationStream, Logger, LevelWithSilent } from 'pino';
import { loggablePath } from './http/url';

export type { Logger };

export const LOG_LEVELS: readonly LevelWithSilent[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

interface RequestLike {
  method?: string;
  url?: string;
  socket?: { remoteAddress?: string };
  ip?: string;
}

interface ResponseLike {
  statusCode?: number;
}

/**
 * The companion's logger. What it may never contain (docs/plugin.md, ASVS 16.2.5): tokens, push
 * endpoints, note contents. So requests are logged as method + path (no query string, no
 * headers, no body), and the header paths that would hold credentials are redacted in case
 * some code logs a whole request or headers object anyway.
 */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'headers.cookie',
        'authorization',
        'token',
        '*.token',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: RequestLike) => ({
        method: req.method,
        path: loggablePath(req.url ?? ''),
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
      }),
      res: (res: ResponseLike) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
