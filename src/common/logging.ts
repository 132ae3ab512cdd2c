import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type DynamicModule, Logger, type LoggerService, type LogLevel, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type Level, type LevelWithSilent, type Logger as PinoRoot, type LoggerOptions, pino } from 'pino';
import { responseLabelsOf } from './response-labels';

const NEST_LOG_LEVELS: Record<string, LogLevel[]> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  silent: [],
};

// A UPI ID is personal data: keep its first character and the bank handle, in text and in URLs
// (where the "@" may arrive percent-encoded). Every valid ID, including those starting with
// "_", "." or "-" (a word boundary missed those): the match starts where an ID character does.
const UPI_ID = /(?<![a-zA-Z0-9.\-_])([a-zA-Z0-9.\-_])[a-zA-Z0-9.\-_]{1,63}(@|%40)([a-zA-Z]{2,32})\b/g;

export function maskUpiIds(text: string): string {
  return text.replace(UPI_ID, '$1***$2$3');
}

/** One line format for every logger of the process: JSON, level names, ISO time, masked UPI IDs. */
function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((arg): unknown => (typeof arg === 'string' ? maskUpiIds(arg) : arg)) as Parameters<typeof method>,
        );
      },
    },
    redact: {
      paths: ['authorization', '*.authorization', 'accessToken', '*.accessToken', 'password', '*.password', 'pin'],
      censor: '[redacted]',
    },
  };
}

// Nest's own start-up lines (one per module and per route, 60 and more): debug, not info.
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

function isFrameworkLine(rest: unknown[]): boolean {
  const context = rest.at(-1);
  return typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context);
}

/** `logger` with Nest's start-up listing moved from info to debug; everything else unchanged. */
export function withFrameworkLinesAtDebug(logger: LoggerService): LoggerService {
  return {
    log: (message: unknown, ...rest: unknown[]) =>
      isFrameworkLine(rest) ? logger.debug?.(message, ...rest) : logger.log(message, ...rest),
    error: (message: unknown, ...rest: unknown[]) => logger.error(message, ...rest),
    warn: (message: unknown, ...rest: unknown[]) => logger.warn(message, ...rest),
    debug: (message: unknown, ...rest: unknown[]) => logger.debug?.(message, ...rest),
    verbose: (message: unknown, ...rest: unknown[]) => logger.verbose?.(message, ...rest),
    fatal: (message: unknown, ...rest: unknown[]) => logger.fatal?.(message, ...rest),
  };
}

let plannedShutdown = false;

/** From a stop signal on, failures the stop itself causes (the database closing connections) are expected. */
export function notePlannedShutdown(): void {
  plannedShutdown = true;
}

/** Whether the process is stopping on purpose: expected losses are then logged at debug, not as warnings. */
export function isPlannedShutdown(): boolean {
  return plannedShutdown;
}

/**
 * Nest's logger before nestjs-pino takes over (configuration, the embedded database, migrations),
 * so that even the first line of a boot is JSON in the same shape as the request lines.
 */
class BootLogger implements LoggerService {
  constructor(private readonly logger: pino.Logger) {}

  log(message: unknown, ...rest: unknown[]) {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    // Nest passes (message, stack, context) for errors.
    const stack = rest.length >= 2 && typeof rest[0] === 'string' ? rest[0] : undefined;
    this.write('error', message, rest, stack);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  private write(level: Exclude<LevelWithSilent, 'silent'>, message: unknown, rest: unknown[], stack?: string) {
    const last = rest.at(-1);
    const context = typeof last === 'string' && last !== stack ? last : undefined;
    const text = message instanceof Error ? message.message : typeof message === 'string' ? message : undefined;
    const fields = {
      context,
      ...(stack || message instanceof Error ? { err: { stack: stack ?? (message as Error).stack } } : {}),
      ...(text === undefined ? { data: message } : {}),
    };
    this.logger[level](fields, text ?? '');
  }
}

/** Maps LOG_LEVEL onto Nest's logger, for the app and for stand-alone scripts alike. */
export function applyLogLevel(logLevel: string): LogLevel[] {
  const levels = NEST_LOG_LEVELS[logLevel] ?? NEST_LOG_LEVELS.info;
  Logger.overrideLogger(
    withFrameworkLinesAtDebug(new BootLogger(pino(pinoOptions(logLevel in NEST_LOG_LEVELS ? logLevel : 'info')))),
  );
  Logger.overrideLogger(levels);
  return levels;
}

/** What a request line says about the business outcome. */
interface BusinessFields {
  transactionReferenceId?: string;
  replayed?: boolean;
  problemType?: string;
}

/**
 * The business fields of a request line that is being written, from what the reply's producers
 * recorded on it (response-labels.ts: the problem filter, and the interceptor of every route declared
 * a money movement), so that the transfer code needs to know nothing about logging and no body is
 * parsed back.
 */
function fieldsOf(_request: IncomingMessage, response: ServerResponse): BusinessFields {
  const facts = responseLabelsOf(response);
  const isMoney = facts.movement !== undefined;
  const fields: BusinessFields = {};
  if (isMoney && facts.transactionReferenceId !== undefined)
    fields.transactionReferenceId = facts.transactionReferenceId;
  if (isMoney) fields.replayed = facts.replayed === true;
  if (response.statusCode >= 400 && facts.problemType !== undefined) fields.problemType = facts.problemType;
  return fields;
}

/** Client mistakes are worth a look (warn); the service's own failures need one (error). */
function levelForStatus(statusCode: number): Level {
  if (statusCode >= 500) return 'error';
  return statusCode >= 400 ? 'warn' : 'info';
}

/** Whether a line at `level` is written when the logger is set to `threshold`. */
function writtenAt(threshold: string): (level: LevelWithSilent) => boolean {
  const lowest = pino.levels.values[threshold] ?? Infinity;
  return (level) => (pino.levels.values[level] ?? -Infinity) >= lowest;
}

/**
 * Structured JSON logs through nestjs-pino: every application log line of a request carries the
 * request's id (the X-Request-Id value), through the request's logger, which is Fastify's
 * (requestLoggerOptions): one child of the root per request. pino-http would make two, the second
 * from the first, and V8 then builds a new prototype for every request (docs/decisions/0013-the-tail-at-1000-transfers-per-second.md). No headers, bodies or tokens are logged.
 */
export function structuredLogging(logLevel: string): DynamicModule {
  return {
    module: LoggingModule,
    imports: [
      LoggerModule.forRoot({
        // The library's default route pattern does not reach Fastify's middleware in Nest 12; this one does.
        forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
        // Bind Fastify's request logger (on the raw request, by @fastify/middie) for nestjs-pino;
        // lines written outside a request go to the same root as the requests' loggers.
        useExisting: true,
        pinoHttp: { logger: serviceRoot(logLevel) },
      }),
    ],
  };
}

const roots = new Map<string, PinoRoot>();

/** The one pino root of the service at `logLevel`: requests' loggers are its children. */
function serviceRoot(logLevel: string): PinoRoot {
  let root = roots.get(logLevel);
  if (!root) roots.set(logLevel, (root = pino(pinoOptions(logLevel))));
  return root;
}

/**
 * Fastify's loggers: per request one child of the service's root (not of Fastify's own logger),
 * with the request's id as `requestId`, and our request line. Fastify's own lines (its listen
 * addresses) only from warn up: the service writes its own start-up line.
 */
export function requestLoggerOptions(logLevel: string) {
  const root = serviceRoot(logLevel);
  const writes = writtenAt(logLevel);
  return {
    loggerInstance: root.child({}, { level: writes('warn') ? 'warn' : logLevel }),
    childLoggerFactory: (_fastifyLogger: unknown, bindings: pino.Bindings) => root.child(bindings),
    logController: new RequestLines(writes),
  };
}

/**
 * Fastify's own hooks for its per-request lines: none as a request comes in, and one as its
 * response finishes (method, masked URL, status, time in ms and the business fields above); 2xx
 * and 3xx at info, 4xx at warn, 5xx at error. A line the level would drop is not built.
 */
class RequestLines extends LogController {
  constructor(private readonly writes: (level: LevelWithSilent) => boolean) {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = error ? 'error' : levelForStatus(reply.statusCode);
    if (!this.writes(level)) return;
    const failure =
      error ?? (reply.statusCode >= 500 ? new Error(`failed with status code ${reply.statusCode}`) : null);
    const line = {
      req: { method: request.method, url: maskUpiIds(request.url) },
      res: { statusCode: reply.statusCode },
      ...(failure ? { err: failure } : {}),
      responseTime: Math.round(reply.elapsedTime),
      ...fieldsOf(request.raw, reply.raw),
    };
    request.log[level](line, failure ? 'request errored' : 'request completed');
  }
}

@Module({})
class LoggingModule {}
