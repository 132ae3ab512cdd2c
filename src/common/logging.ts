import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Logger, type LogLevel, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';

const NEST_LOG_LEVELS: Record<string, LogLevel[]> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  silent: [],
};

/** Maps LOG_LEVEL onto Nest's logger, for the app and for stand-alone scripts alike. */
export function applyLogLevel(logLevel: string): LogLevel[] {
  const levels = NEST_LOG_LEVELS[logLevel] ?? NEST_LOG_LEVELS.info;
  Logger.overrideLogger(levels);
  return levels;
}

/**
 * Structured JSON logs through nestjs-pino: one line per request (method, URL, status, time) and
 * every application log line of a request, each with the request's id (the X-Request-Id value).
 * No headers, bodies or tokens are logged.
 */
export function structuredLogging(logLevel: string): DynamicModule {
  return LoggerModule.forRoot({
    // The library's default route pattern does not reach Fastify's middleware in Nest 12; this one does.
    forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
    pinoHttp: {
      level: logLevel,
      genReqId: (request) => (request as IncomingMessage & { id?: string }).id ?? 'unknown',
      customAttributeKeys: { reqId: 'requestId' },
      // Bind the id to the request's child logger, so every line of the request carries it.
      quietReqLogger: true,
      serializers: {
        req: (request: { id: string; method: string; url: string }) => ({ method: request.method, url: request.url }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
      redact: {
        paths: ['authorization', '*.authorization', 'accessToken', '*.accessToken', 'password', '*.password'],
        censor: '[redacted]',
      },
    },
  });
}
