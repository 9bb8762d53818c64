import { operationSpec, type FieldMap, type FieldSpec, type OperationName } from '../gateway';

/**
 * The real gateway reads requests the way Java-style JSON binding does, and the clients built from
 * its official samples rely on that: a `Long` may arrive as a numeric string, an optional field as
 * an empty string, and fields an operation does not use (`startTime`, a stray `partnerName`) ride
 * along unnoticed. payrun's own client stays strict; the sandbox meets other clients where the
 * gateway does.
 *
 * This runs after the signature was checked over the values exactly as received, so what it
 * changes can never change what was signed. It returns the request as a handler should see it:
 * numbers typed, empty optionals absent, undeclared fields gone.
 */
export function readLikeTheGateway(
  operation: OperationName,
  plain: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return readObject(operationSpec(operation).request, plain, false);
}

const LONG_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

function readObject(map: FieldMap, value: Readonly<Record<string, unknown>>, open: boolean) {
  const read: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(value)) {
    const spec: FieldSpec | undefined = map[name];
    if (!spec) {
      // `signature` and `accessKey` travel on the wire without being fields; open shapes keep extras.
      if (open) read[name] = entry;
      continue;
    }
    const field = readField(spec, entry);
    if (field !== ABSENT) read[name] = field;
  }
  return read;
}

const ABSENT = Symbol('absent');

function readField(spec: FieldSpec, value: unknown): unknown {
  if (value === '' && !spec.required && !acceptsEmptyText(spec)) return ABSENT;
  switch (spec.kind) {
    case 'long':
      return typeof value === 'string' && LONG_TEXT.test(value) ? Number(value) : value;
    case 'decimal':
      return typeof value === 'string' && DECIMAL_TEXT.test(value) ? Number(value) : value;
    case 'object':
      return isRecord(value) ? readObject(spec.fields, value, spec.open === true) : value;
    case 'list':
      return Array.isArray(value)
        ? value.map((item) => {
            const read = readField(spec.of, item);
            return read === ABSENT ? '' : read;
          })
        : value;
    case 'encrypted':
      return readField({ ...spec.payload, required: spec.required }, value);
    default:
      return value;
  }
}

/** Free text keeps an empty string (it means "empty", and is the spec's default for several). */
function acceptsEmptyText(spec: FieldSpec): boolean {
  return spec.kind === 'string' && (spec.enum === undefined || spec.enum.includes(''));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
