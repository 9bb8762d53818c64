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
  compiledFields(map, options.strict)(fields, prefix, violations);
  return violations;
}

/**
 * The checks of a field map, built once: the same rules as `checkFields`, for callers that check many
 * values against one map (every row of a payout file), where walking the descriptors per value costs
 * more than the checks themselves.
 */
export function fieldsCheck(map: FieldMap, options: CheckOptions): (fields: Fields) => Violation[] {
  const check = compiledFields(map, options.strict);
  return (fields) => {
    const violations: Violation[] = [];
    check(fields, '', violations);
    return violations;
  };
}

type MapCheck = (fields: Fields, prefix: string, out: Violation[]) => void;
type ValueCheck = (value: unknown, path: string, out: Violation[]) => void;

/** Compiled maps, per strictness; the descriptors are constants, so each is compiled once. */
const COMPILED: Record<'strict' | 'open', WeakMap<FieldMap, MapCheck>> = {
  strict: new WeakMap(),
  open: new WeakMap(),
};

function compiledFields(map: FieldMap, strict: boolean): MapCheck {
  const cache = COMPILED[strict ? 'strict' : 'open'];
  let check = cache.get(map);
  if (!check) {
    check = compileMap(map, strict);
    cache.set(map, check);
  }
  return check;
}

function compileMap(map: FieldMap, strict: boolean): MapCheck {
  const names = Object.keys(map);
  // Compiled on first use, so a recursive descriptor cannot recurse at compile time.
  const checks: Array<ValueCheck | undefined> = names.map(() => undefined);
  const checkOf = (index: number): ValueCheck =>
    (checks[index] ??= compileValue(map[names[index]!]!, strict));
  return (fields, prefix, out) => {
    for (let index = 0; index < names.length; index++) {
      const name = names[index]!;
      checkOf(index)(fields[name], prefix + name, out);
    }
    if (!strict) return;
    for (const name in fields) {
      if (!Object.hasOwn(fields, name) || fields[name] === undefined || Object.hasOwn(map, name)) continue;
      if (prefix === '' && WIRE_ONLY.has(name)) continue;
      out.push(problem(`${prefix}${name}`, 'unknown field', `${prefix}${name} is not a declared field`));
    }
  };
}

function problem(field: string, rule: string, message: string): Violation {
  return { field, rule, message };
}

function compileValue(spec: FieldSpec, strict: boolean): ValueCheck {
  const kind = compileKind(spec, strict);
  return (value, path, out) => {
    if (value === undefined || (value === null && spec.nullable)) {
      if (spec.required) out.push(problem(path, 'required', `${path} is required`));
      return;
    }
    if (value === null) {
      out.push(problem(path, 'not null', `${path} must not be null`));
      return;
    }
    kind(value, path, out);
  };
}

/** The checks of a present, non-null value. */
function compileKind(spec: FieldSpec, strict: boolean): ValueCheck {
  switch (spec.kind) {
    case 'string':
      return compileString(spec);
    case 'long':
      return (value, path, out) => {
        if (typeof value !== 'number' || !Number.isSafeInteger(value))
          out.push(problem(path, 'integer', `${path} must be a whole number`));
        else if (spec.min !== undefined && value < spec.min)
          out.push(problem(path, `min ${spec.min}`, `${path} must be at least ${spec.min}`));
        else if (spec.max !== undefined && value > spec.max)
          out.push(problem(path, `max ${spec.max}`, `${path} must be at most ${spec.max}`));
      };
    case 'decimal':
      return (value, path, out) => {
        if (typeof value !== 'number' || !Number.isFinite(value))
          out.push(problem(path, 'number', `${path} must be a number`));
        else if (spec.exclusiveMin !== undefined && value <= spec.exclusiveMin)
          out.push(
            problem(
              path,
              `greater than ${spec.exclusiveMin}`,
              `${path} must be greater than ${spec.exclusiveMin}`,
            ),
          );
        else if (spec.maxDecimals !== undefined && Number(value.toFixed(spec.maxDecimals)) !== value)
          out.push(
            problem(
              path,
              `at most ${spec.maxDecimals} decimals`,
              `${path} must have at most ${spec.maxDecimals} decimals`,
            ),
          );
      };
    case 'boolean':
      return (value, path, out) => {
        if (typeof value !== 'boolean') out.push(problem(path, 'boolean', `${path} must be true or false`));
      };
    case 'object': {
      const fields = compiledFields(spec.fields, strict && !spec.open);
      return (value, path, out) => {
        if (!isPlainObject(value)) out.push(problem(path, 'object', `${path} must be a JSON object`));
        else fields(value, `${path}.`, out);
      };
    }
    case 'list': {
      let entry: ValueCheck | undefined;
      return (value, path, out) => {
        if (!Array.isArray(value)) out.push(problem(path, 'list', `${path} must be a list`));
        else if (spec.maxItems !== undefined && value.length > spec.maxItems)
          out.push(
            problem(
              path,
              `at most ${spec.maxItems} items`,
              `${path} has ${value.length} items, at most ${spec.maxItems} allowed`,
            ),
          );
        else if (spec.minItems !== undefined && value.length < spec.minItems)
          out.push(
            problem(path, `at least ${spec.minItems} items`, `${path} needs at least ${spec.minItems} items`),
          );
        else {
          entry ??= compileValue(spec.of, strict);
          for (let index = 0; index < value.length; index++) entry(value[index], `${path}[${index}]`, out);
        }
      };
    }
    case 'encrypted':
      return compileValue({ ...spec.payload, required: spec.required }, strict);
  }
}

/** Characters as a person counts them (code points): a surrogate pair is one. */
function codePointLength(value: string): number {
  let pairs = 0;
  for (let index = 0; index < value.length - 1; index++) {
    const code = value.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs += 1;
        index += 1;
      }
    }
  }
  return value.length - pairs;
}

function compileString(spec: Extract<FieldSpec, { kind: 'string' }>): ValueCheck {
  const { maxLength, minLength, pattern, format } = spec;
  const formatCheck = format ? FORMAT_CHECKS[format] : undefined;
  return (value, path, out) => {
    if (typeof value !== 'string') {
      out.push(problem(path, 'string', `${path} must be a string`));
      return;
    }
    if (spec.required && value === '') {
      out.push(problem(path, 'required', `${path} is required (empty)`));
      return;
    }
    // Lengths count characters (code points), so Vietnamese text is measured as a person reads it;
    // a string no longer in UTF-16 units than the maximum cannot have more code points.
    if (maxLength !== undefined && value.length > maxLength) {
      const length = codePointLength(value);
      if (length > maxLength) {
        out.push(
          problem(
            path,
            `maxLength ${maxLength}`,
            `${path} is ${length} characters, at most ${maxLength} allowed`,
          ),
        );
        return;
      }
    }
    if (minLength !== undefined && codePointLength(value) < minLength) {
      out.push(problem(path, `minLength ${minLength}`, `${path} needs at least ${minLength} characters`));
      return;
    }
    if (spec.enum && !spec.enum.includes(value)) {
      out.push(
        problem(
          path,
          `one of ${spec.enum.join(', ')}`,
          `${path} must be one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')}`,
        ),
      );
      return;
    }
    if (pattern && value !== '' && !pattern.test(value)) {
      out.push(problem(path, `pattern ${pattern.source}`, `${path} must match ${pattern.source}`));
      return;
    }
    if (formatCheck && value !== '') {
      const broken = formatCheck(value);
      if (broken) out.push(problem(path, `format ${format}`, `${path} ${broken}`));
    }
  };
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
