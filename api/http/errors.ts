import type { ErrorRequestHandler } from 'express';
import type { z } from 'zod';
import { statusOf, type ErrorCode, type StatusOf } from '../../contracts/shared';

/** One field-level problem: which input, which rule, in words. */
export interface FieldProblem {
  field: string;
  rule: string;
  message: string;
}

export interface ApiErrorOptions<C extends ErrorCode> {
  /** Only for a code the catalogue gives two statuses; otherwise the catalogue's. */
  status?: StatusOf<C>;
  problems?: FieldProblem[];
  /** Sent with the answer, e.g. `Retry-After` on 429 and 503. */
  headers?: Record<string, string>;
}

/**
 * Every error the API answers with. `code` is one of the catalogue's (contracts/shared/errors.ts), which
 * also gives its status; `message` is for people; `problems` names the fields and rules when input was
 * at fault.
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  readonly problems: FieldProblem[];
  readonly headers: Record<string, string>;

  constructor(
    readonly code: C,
    message: string,
    options: ApiErrorOptions<C> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = (options.status as number | undefined) ?? statusOf(code);
    this.problems = options.problems ?? [];
    this.headers = options.headers ?? {};
  }
}

export const unauthorized = (message = 'An API key is required (Authorization: Bearer <key>).') =>
  new ApiError('unauthorized', message);
export const forbidden = (message: string) => new ApiError('forbidden', message);
export const notFound = (what: string) => new ApiError('not_found', `${what} was not found.`);
/** A 409 refusal: the record is not in a state that allows the action. */
export const conflict = (code: ErrorCode, message: string) => new ApiError(code, message);

/**
 * Marks a zod issue as a rule the OpenAPI document cannot state (a sum across items, an order between two
 * dates, a cursor only this API can mint): a request that satisfies the document but breaks only such
 * rules answers 422, not 400, so "valid by the document" and "accepted or refused for a stated reason"
 * stay apart. `rule` names it in `problems`.
 */
export const beyondSchema = (rule: string) => ({ beyondSchema: true, rule });

const isBeyondSchema = (issue: z.core.$ZodIssue) =>
  issue.code === 'custom' && (issue.params as { beyondSchema?: boolean } | undefined)?.beyondSchema === true;

export function invalidInput(location: string, issues: z.core.$ZodIssue[]): ApiError {
  const problems = issues.flatMap((issue): FieldProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: [location, ...issue.path.map(String), key].join('.'),
        rule: 'unknown_field',
        message: `Unknown field "${key}".`,
      }));
    }
    // A custom issue may name its rule (`beyondSchema(rule)`, or `params: { rule }` for a 400).
    const rule =
      (issue.code === 'custom' && (issue.params as { rule?: string } | undefined)?.rule) || issue.code;
    return [{ field: [location, ...issue.path.map(String)].join('.'), rule, message: issue.message }];
  });
  const summary = problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
  const status = issues.every(isBeyondSchema) ? 422 : 400;
  return new ApiError('invalid_request', `The request is invalid: ${summary}`, {
    status,
    problems: problems,
  });
}

export interface ErrorBody {
  error: { code: string; message: string; requestId?: string; problems?: FieldProblem[] };
}

export function errorBody(error: ApiError, requestId?: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(requestId ? { requestId } : {}),
      ...(error.problems.length ? { problems: error.problems } : {}),
    },
  };
}

/** Errors raised by Express's own body parsers, mapped to our shape. */
export function fromParserError(error: {
  type?: string;
  status?: number;
  limit?: number;
}): ApiError | undefined {
  if (error.type === 'entity.parse.failed')
    return new ApiError('malformed_body', 'The body is not valid JSON.');
  if (error.type === 'entity.too.large') {
    return new ApiError('body_too_large', `The body is larger than the limit of ${error.limit} bytes.`);
  }
  // A path whose percent-encoding does not decode (`/v1/disbursements/%E0`): the router and the static
  // file server raise it with status 400.
  if (
    error instanceof URIError ||
    (error.status === 400 && /decode/i.test(String((error as Error).message)))
  ) {
    return new ApiError('malformed_path', 'The path is not valid percent-encoded UTF-8.');
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new ApiError('unsupported_encoding', 'The body must be UTF-8.');
  }
  return undefined;
}

/** The last middleware: known errors answer as themselves, anything else as a 500 without details. */
export function errorHandler(): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const requestId = res.locals.requestId as string | undefined;
    const known =
      error instanceof ApiError
        ? error
        : fromParserError(error as { type?: string; status?: number; limit?: number });
    if (known) {
      res.locals.errorCode = known.code;
      if (known instanceof ApiError) res.set(known.headers);
      res.status(known.status).json(errorBody(known, requestId));
      return;
    }
    res.locals.log?.error({ err: error }, 'Unhandled error');
    res.locals.errorCode = 'internal_error';
    res
      .status(500)
      .json(errorBody(new ApiError('internal_error', 'Something went wrong on our side.'), requestId));
  };
}
