/**
 * Text payrun cannot or will not keep is refused before any route sees it, with 400 naming each field
 * and its rule: control characters (PostgreSQL cannot store a NUL in text, 22021, once a 500; no field
 * payrun takes has a use for the others, while tab, line feed and carriage return stay allowed for free
 * text), and unpaired UTF-16 surrogates (`"a\ud800b"`: jsonb refuses them, 22P02, and one in a
 * disbursement's description once failed its audit entry after the money moved). See
 * `db/shared/storable-text.ts`. The walk is iterative: a body nested 2,000 deep is refused, not a stack overflow.
 */
import { stringsIn, unstorableRule, UNSTORABLE_MESSAGES } from '../../db/shared/storable-text';
import { ApiError, type FieldProblem } from './errors';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** What is wrong with one string, if anything. */
export function textProblem(field: string, text: string): FieldProblem | undefined {
  if (CONTROL.test(text))
    return { field, rule: 'control_character', message: 'Control characters are not allowed.' };
  // Past the control characters, NUL included, what is left that PostgreSQL refuses is a lone surrogate.
  const rule = unstorableRule(text);
  return rule ? { field, rule, message: UNSTORABLE_MESSAGES[rule] } : undefined;
}

/**
 * Throws a 400 naming every field of the inputs (by location: path, query, header, body) that holds
 * such text; keys of objects are checked too, and named by the path of their value.
 */
export function refuseUnsafeText(inputs: Record<string, unknown>): void {
  const found: FieldProblem[] = [];
  for (const [location, value] of Object.entries(inputs)) {
    for (const [field, text] of stringsIn(value, location)) {
      const problem = textProblem(field, text);
      if (problem) found.push(problem);
    }
  }
  if (found.length === 0) return;
  throw new ApiError(
    'invalid_request',
    `The request is invalid: ${found.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`,
    { problems: found },
  );
}
