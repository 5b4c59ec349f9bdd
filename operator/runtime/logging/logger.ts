import pino, { Logger, LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * The runtime's default logger: JSON lines on stdout with ISO timestamps, level from `LOG_LEVEL` (default `info`).
 * Components take a `Logger` and derive child loggers carrying `controller`, `key` and `reconcileId`.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({
    level: process.env.LOG_LEVEL ?? 'info',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    ...options,
  });
}
