/**
 * db/shared/storable-text.ts: what PostgreSQL cannot store is found wherever it sits in a value (keys included,
 * at any depth, without recursion), and normalised into a copy that names what changed.
 */
import { describe, expect, it } from 'vitest';
import { storableJson, storableText, stringsIn, unstorableRule } from '../../db/shared/storable-text';

describe('text PostgreSQL cannot store', () => {
  it('is a NUL or an unpaired surrogate; a pair (an emoji) is a character', () => {
    expect(unstorableRule('a\u0000b')).toBe('nul_character');
    expect(unstorableRule('a\ud800b')).toBe('unpaired_surrogate');
    expect(unstorableRule('a\udc00b')).toBe('unpaired_surrogate');
    expect(unstorableRule('\udc00\ud800')).toBe('unpaired_surrogate');
    expect(unstorableRule('Lương 🎉 \t\n')).toBeUndefined();
    expect(storableText('a\ud800b\u0000c\udfff🎉')).toBe('a\ufffdbc\ufffd🎉');
  });

  it('is found in keys and values at any depth, named by path, in document order, 100,000 deep', () => {
    expect([...stringsIn({ a: ['x', { 'k\u0000': 'y' }], b: 'z' }, 'body')]).toEqual([
      ['body.a', 'a'],
      ['body.a.0', 'x'],
      ['body.a.1.k\u0000', 'k\u0000'],
      ['body.a.1.k\u0000', 'y'],
      ['body.b', 'b'],
      ['body.b', 'z'],
    ]);
    let deep: unknown = 'leaf\ud800';
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    const found = [...stringsIn(deep)];
    expect(found).toHaveLength(1);
    expect(found[0]![1]).toBe('leaf\ud800');
    expect(storableJson(deep).normalised).toHaveLength(1);
  });

  it('is normalised into a copy naming the fields that changed; a clean value is returned as it is', () => {
    const value = JSON.parse(
      '{"message":"a\\ud800b","extraData":"x\\u0000","n":1,"list":["ok","\\udfff"],"__proto__":{"k":"v\\u0000"}}',
    ) as Record<string, unknown>;
    const { value: fixed, normalised } = storableJson(value);
    expect(normalised).toEqual(['message', 'extraData', 'list.1', '__proto__.k']);
    expect(JSON.stringify(fixed)).toBe(
      '{"message":"a\ufffdb","extraData":"x","n":1,"list":["ok","\ufffd"],"__proto__":{"k":"v"}}',
    );
    expect(Object.getPrototypeOf(fixed)).toBe(Object.prototype);
    expect(value.message).toBe('a\ud800b');
    const clean = { a: ['b', { c: 1 }] };
    expect(storableJson(clean)).toEqual({ value: clean, normalised: [] });
    expect(storableJson(clean).value).toBe(clean);
  });
});
