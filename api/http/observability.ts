import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../platform/logger';
import { httpRequestDuration, httpRequests } from '../../platform/metrics';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Request id (the caller's `X-Request-Id` when sane), a child logger, one log line and metrics per request. */
export function observeRequests(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.header('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The route template, never the raw path: ids in paths would explode the metric's label set.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      httpRequestDuration.observe({ method: req.method, route }, seconds);
      const principal = res.locals.principal as { name?: string } | undefined;
      (res.locals.log as Logger).info(
        {
          // Not `method`: that name is a receiver object in the gateway's sensitive-field list.
          httpMethod: req.method,
          route,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1000),
          caller: principal?.name,
          errorCode: res.locals.errorCode,
        },
        'request',
      );
    });
    next();
  };
}
