/**
 * Text with control characters is refused before any route sees it. PostgreSQL cannot store a NUL in
 * text (it answers 22021, which was a 500), and no field payrun takes has a use for the others; tab,
 * line feed and carriage return stay allowed for free text.
 */
import { ApiError, type FieldProblem } from './errors';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function problemsIn(location: string, value: unknown, found: FieldProblem[]): void {
  if (typeof value === 'string') {
    if (CONTROL.test(value))
      found.push({
        field: location,
        rule: 'control_character',
        message: 'Control characters are not allowed.',
      });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => problemsIn(`${location}.${index}`, item, found));
  } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [key, item] of Object.entries(value)) {
      problemsIn(`${location}.${key}`, key, found);
      problemsIn(`${location}.${key}`, item, found);
    }
  }
}

/** Throws a 400 naming every field of the inputs (by location: path, query, body) that holds one. */
export function refuseControlCharacters(inputs: Record<string, unknown>): void {
  const found: FieldProblem[] = [];
  for (const [location, value] of Object.entries(inputs)) problemsIn(location, value, found);
  if (found.length === 0) return;
  throw new ApiError(
    400,
    'invalid_request',
    `The request is invalid: ${found.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`,
    found,
  );
}
