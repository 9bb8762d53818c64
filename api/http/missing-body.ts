import type { Request } from 'express';
import { ApiError } from './errors';

/**
 * A route whose document requires a body refuses a request that sends none (400 `missing_body`), rather
 * than reading it as `{}`: no body at all is another request, not an empty one. `what` says what to send.
 */
export function refuseMissingBody(req: Request, what: string): void {
  const length = req.headers['content-length'];
  if (length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined))
    throw new ApiError('missing_body', `The request has no body: send ${what}.`, {
      problems: [{ field: 'body', rule: 'required', message: what }],
    });
}
