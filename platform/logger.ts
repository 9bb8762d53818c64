import { pino, type DestinationStream, type Logger } from 'pino';
import { redact } from '../gateway/sensitive-fields';

export type { Logger };

/**
 * Structured JSON logs on stdout; one logger per process, children per component. Every object
 * logged passes through the gateway's one list of sensitive fields (keys, signatures, tokens, OTPs,
 * wallet ids, names, personal ids, card data), so a careless `log.info({ item })` cannot leak them.
 */
export function createLogger(level: string, name = 'payrun', destination?: DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      base: { pid: process.pid },
      formatters: { log: (object) => redact(object) },
      // redact() has already turned errors into { type, message, code, stack, cause } without secrets;
      // pino's own serializer would run after it and flatten that again.
      serializers: { err: (error: unknown) => error },
    },
    destination,
  );
}
