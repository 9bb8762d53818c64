import { GatewayValidationError } from './errors';
import { operationSpec, type OperationName } from './operations';
import type { FieldMap, FieldSpec, Fields, ValidationContext, Violation } from './operations/types';

/**
 * Interprets the table's field descriptors and rules. The client validates plaintext requests
 * before anything is encrypted or sent; the sandbox can validate decrypted incoming requests with
 * the same function, and notification parsing reuses `checkFields` in lenient mode.
 */

export interface CheckOptions {
  /** Reject keys the descriptor does not declare (requests); incoming messages stay open. */
  readonly strict: boolean;
}

/** Keys that are never part of a field table but travel on the wire. */
const WIRE_ONLY = new Set(['signature', 'accessKey']);

export function validateRequest(
  operation: OperationName,
  fields: Fields,
  context: ValidationContext = {},
): Violation[] {
  const spec = operationSpec(operation);
  const violations = checkFields(spec.request, fields, '', { strict: true });
  // Cross-field rules assume well-typed fields; running them on broken input only adds noise.
  if (violations.length > 0) return violations;
  return (spec.rules ?? []).flatMap((rule) => rule.check(fields, context));
}

/** Throws a GatewayValidationError naming the first broken field and rule (and carrying all). */
export function assertValidRequest(
  operation: OperationName,
  fields: Fields,
  context: ValidationContext = {},
): void {
  const violations = validateRequest(operation, fields, context);
  if (violations.length > 0) throw new GatewayValidationError(operation, violations);
}

export function checkFields(
  map: FieldMap,
  fields: Fields,
  prefix: string,
  options: CheckOptions,
): Violation[] {
  const violations: Violation[] = [];
  for (const [name, spec] of Object.entries(map)) {
    violations.push(...checkValue(spec, fields[name], `${prefix}${name}`, options));
  }
  if (options.strict) {
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined && !Object.hasOwn(map, name) && !(prefix === '' && WIRE_ONLY.has(name))) {
        violations.push(
          problem(`${prefix}${name}`, 'unknown field', `${prefix}${name} is not a declared field`),
        );
      }
    }
  }
  return violations;
}

function problem(field: string, rule: string, message: string): Violation {
  return { field, rule, message };
}

function checkValue(spec: FieldSpec, value: unknown, path: string, options: CheckOptions): Violation[] {
  if (value === undefined || (value === null && spec.nullable)) {
    return spec.required ? [problem(path, 'required', `${path} is required`)] : [];
  }
  if (value === null) return [problem(path, 'not null', `${path} must not be null`)];
  switch (spec.kind) {
    case 'string':
      return checkString(spec, value, path);
    case 'long':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        return [problem(path, 'integer', `${path} must be a whole number`)];
      if (spec.min !== undefined && value < spec.min)
        return [problem(path, `min ${spec.min}`, `${path} must be at least ${spec.min}`)];
      if (spec.max !== undefined && value > spec.max)
        return [problem(path, `max ${spec.max}`, `${path} must be at most ${spec.max}`)];
      return [];
    case 'decimal':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return [problem(path, 'number', `${path} must be a number`)];
      if (spec.exclusiveMin !== undefined && value <= spec.exclusiveMin)
        return [
          problem(
            path,
            `greater than ${spec.exclusiveMin}`,
            `${path} must be greater than ${spec.exclusiveMin}`,
          ),
        ];
      if (spec.maxDecimals !== undefined && Number(value.toFixed(spec.maxDecimals)) !== value)
        return [
          problem(
            path,
            `at most ${spec.maxDecimals} decimals`,
            `${path} must have at most ${spec.maxDecimals} decimals`,
          ),
        ];
      return [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [problem(path, 'boolean', `${path} must be true or false`)];
    case 'object':
      if (!isPlainObject(value)) return [problem(path, 'object', `${path} must be a JSON object`)];
      return checkFields(spec.fields, value, `${path}.`, { strict: options.strict && !spec.open });
    case 'list': {
      if (!Array.isArray(value)) return [problem(path, 'list', `${path} must be a list`)];
      if (spec.maxItems !== undefined && value.length > spec.maxItems)
        return [
          problem(
            path,
            `at most ${spec.maxItems} items`,
            `${path} has ${value.length} items, at most ${spec.maxItems} allowed`,
          ),
        ];
      if (spec.minItems !== undefined && value.length < spec.minItems)
        return [
          problem(path, `at least ${spec.minItems} items`, `${path} needs at least ${spec.minItems} items`),
        ];
      return value.flatMap((entry: unknown, index) =>
        checkValue(spec.of, entry, `${path}[${index}]`, options),
      );
    }
    case 'encrypted':
      return checkValue({ ...spec.payload, required: spec.required }, value, path, options);
  }
}

function checkString(
  spec: Extract<FieldSpec, { kind: 'string' }>,
  value: unknown,
  path: string,
): Violation[] {
  if (typeof value !== 'string') return [problem(path, 'string', `${path} must be a string`)];
  if (spec.required && value === '') return [problem(path, 'required', `${path} is required (empty)`)];
  // Lengths count characters (code points), so Vietnamese text is measured as a person reads it.
  const length = [...value].length;
  if (spec.maxLength !== undefined && length > spec.maxLength)
    return [
      problem(
        path,
        `maxLength ${spec.maxLength}`,
        `${path} is ${length} characters, at most ${spec.maxLength} allowed`,
      ),
    ];
  if (spec.minLength !== undefined && length < spec.minLength)
    return [
      problem(path, `minLength ${spec.minLength}`, `${path} needs at least ${spec.minLength} characters`),
    ];
  if (spec.enum && !spec.enum.includes(value))
    return [
      problem(
        path,
        `one of ${spec.enum.join(', ')}`,
        `${path} must be one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')}`,
      ),
    ];
  if (spec.pattern && value !== '' && !spec.pattern.test(value))
    return [problem(path, `pattern ${spec.pattern.source}`, `${path} must match ${spec.pattern.source}`)];
  if (spec.format && value !== '') {
    const broken = FORMAT_CHECKS[spec.format](value);
    if (broken) return [problem(path, `format ${spec.format}`, `${path} ${broken}`)];
  }
  return [];
}

const FORMAT_CHECKS: Record<
  NonNullable<Extract<FieldSpec, { kind: 'string' }>['format']>,
  (value: string) => string | undefined
> = {
  'base64-json': (value) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) return 'must be Base64';
    try {
      const decoded: unknown = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
      return isPlainObject(decoded) ? undefined : 'must be Base64 of a JSON object';
    } catch {
      return 'must be Base64 of a JSON object';
    }
  },
  date: (value) =>
    isCalendarDate(value, /^(\d{4})-(\d{2})-(\d{2})$/, [1, 2, 3]) ? undefined : 'must be a date YYYY-MM-DD',
  'dmy-date': (value) =>
    isCalendarDate(value, /^(\d{2})\/(\d{2})\/(\d{4})$/, [3, 2, 1]) ? undefined : 'must be a date DD/MM/YYYY',
  'gmt7-datetime': (value) =>
    /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)
      ? undefined
      : 'must be a date-time YYYY-MM-DD HH:mm:ss',
};

function isCalendarDate(value: string, pattern: RegExp, [y, m, d]: [number, number, number]): boolean {
  const match = pattern.exec(value);
  if (!match) return false;
  const year = Number(match[y]);
  const month = Number(match[m]);
  const day = Number(match[d]);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
