import pino, { Logger } from 'pino';

/** A logger that records entries in memory, so tests can assert that nothing was swallowed. */
export function recordingLogger(): { logger: Logger; entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug', formatters: { level: (label) => ({ level: label }) } },
    {
      write: (line: string) => {
        entries.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, entries };
}

export const silentLogger: Logger = pino({ level: 'silent' });
