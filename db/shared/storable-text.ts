/**
 * Text PostgreSQL cannot store. A NUL (U+0000) is refused by text columns (22021) and by jsonb (22P05);
 * an unpaired UTF-16 surrogate (one of U+D800–U+DFFF that is not half of a pair) is refused by jsonb,
 * which reads it as the escape `\ud800` (22P02), and reaches a text column only as U+FFFD, replaced on
 * the way by the driver's UTF-8 encoding. A JavaScript string can hold either: JSON's `\u0000` and
 * `\ud800` escapes, a workbook's cells and a notification's fields all produce them.
 *
 * So nothing holding them reaches a write: the API refuses them where they come in (400 naming the field,
 * `api/http/control-characters.ts`; a payout file's cell, naming row and column), and what must be stored
 * whatever it carries (a gateway's verified notification, an audit entry) is normalised here first.
 *
 * The walks are iterative: a JSON body nested thousands deep costs a longer list, not a deeper stack.
 */

export type UnstorableRule = 'nul_character' | 'unpaired_surrogate';

const NUL = '\u0000';
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

/** Why PostgreSQL cannot store `text`, or undefined when it can. */
export function unstorableRule(text: string): UnstorableRule | undefined {
  if (text.includes(NUL)) return 'nul_character';
  if (UNPAIRED_SURROGATE.test(text)) return 'unpaired_surrogate';
  return undefined;
}

export const UNSTORABLE_MESSAGES: Record<UnstorableRule, string> = {
  nul_character: 'The NUL character (U+0000) cannot be stored.',
  unpaired_surrogate:
    'An unpaired UTF-16 surrogate (U+D800–U+DFFF without its other half) is not a character and cannot be stored.',
};

/**
 * What becomes of a NUL: `remove`d (a notification's value, compared as the gateway meant it) or `mark`ed
 * as U+FFFD (an audit entry, whose reader must see that something unstorable was sent there).
 */
export type NulHandling = 'remove' | 'mark';

/** `text` as PostgreSQL can store it: an unpaired surrogate becomes U+FFFD, a NUL is removed or marked. */
export function storableText(text: string, nul: NulHandling = 'remove'): string {
  if (unstorableRule(text) === undefined) return text;
  return text.replace(UNPAIRED_SURROGATES, '\ufffd').replaceAll(NUL, nul === 'mark' ? '\ufffd' : '');
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);

/**
 * Every string of a JSON-like value, object keys included (a key is reported at the path of its value),
 * depth first in document order, without recursion.
 */
export function* stringsIn(value: unknown, path = ''): Generator<[path: string, text: string]> {
  const stack: Array<[path: string, value: unknown]> = [[path, value]];
  while (stack.length > 0) {
    const [at, item] = stack.pop()!;
    if (typeof item === 'string') {
      yield [at, item];
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--) stack.push([join(at, index), item[index]]);
    } else if (isPlainObject(item)) {
      const entries = Object.entries(item);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, inner] = entries[index]!;
        stack.push([join(at, key), inner]);
        // Pushed last, so popped first: the key is looked at before its value.
        stack.push([join(at, key), key]);
      }
    }
  }
}

/**
 * A JSON-like value with every string (keys included) made storable, and the paths of those that
 * changed. The value itself is returned, not a copy, when nothing needed it.
 */
export function storableJson<T>(
  value: T,
  path = '',
  nul: NulHandling = 'remove',
): { value: T; normalised: string[] } {
  // In document order, each path once (a key and its value share one).
  const changed = new Set<string>();
  for (const [at, text] of stringsIn(value, path)) if (unstorableRule(text) !== undefined) changed.add(at);
  if (changed.size === 0) return { value, normalised: [] };

  /** A string made storable, or an empty container to fill, or the value itself (numbers, null…). */
  const shell = (item: unknown): unknown =>
    typeof item === 'string'
      ? storableText(item, nul)
      : Array.isArray(item)
        ? new Array<unknown>(item.length)
        : isPlainObject(item)
          ? {}
          : item;
  const root = shell(value);
  const stack: Array<{ source: unknown; target: unknown }> = [{ source: value, target: root }];
  while (stack.length > 0) {
    const { source, target } = stack.pop()!;
    const children: Array<[key: string | number, item: unknown]> = Array.isArray(source)
      ? source.map((item, index) => [index, item])
      : isPlainObject(source)
        ? Object.entries(source)
        : [];
    for (const [key, item] of children) {
      const copy = shell(item);
      if (typeof key === 'number') (target as unknown[])[key] = copy;
      // Defined, not assigned: a key named `__proto__` (JSON.parse makes one) stays a key.
      else
        Object.defineProperty(target, storableText(key, nul), {
          value: copy,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      if (copy !== item && typeof copy === 'object' && copy !== null)
        stack.push({ source: item, target: copy });
    }
  }
  return { value: root as T, normalised: [...changed] };
}
