import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; one logger per process, children per component. */
export function createLogger(level: string, name = 'payrun'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}
