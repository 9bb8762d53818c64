/**
 * How deep a JSON body may nest arrays and objects. No body payrun takes nests deeper than a handful of
 * levels, and what walks a body afterwards (validation, the idempotency fingerprint, JSON.stringify of
 * an audit entry's details) may recurse once per level: a body nested 2,000 deep once answered 500 from
 * a stack overflow. So depth is refused first, with 400, by a walk that keeps its own stack and stops at
 * the first container past the limit. See docs/api-conventions.md.
 */
import { ApiError } from './errors';

/** The outermost object or array is level 1: `{"a":[{}]}` nests 3 deep. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays and objects deeper than `max`; never recursive. */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ item: object; depth: number }> = [];
  if (value !== null && typeof value === 'object') stack.push({ item: value, depth: 1 });
  while (stack.length > 0) {
    const { item, depth } = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object')
        stack.push({ item: child as object, depth: depth + 1 });
    }
  }
  return false;
}

/** The 400 for a body past the limit, naming the field and the rule like every input refusal. */
export function tooDeep(field = 'body'): ApiError {
  const message = `JSON may nest objects and arrays at most ${MAX_JSON_DEPTH} deep.`;
  return new ApiError('invalid_request', `The request is invalid: ${field}: ${message}`, {
    status: 400,
    problems: [{ field, rule: 'max_depth', message }],
  });
}
