import { Logger, type LogLevel } from '@nestjs/common';

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
