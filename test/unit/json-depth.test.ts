/**
 * Nesting depth is measured without recursion, so no body is too deep to be refused (issue 33: a body
 * nested 2,000 deep answered 500 from a stack overflow).
 */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeep } from '../../api/http/json-depth';

const arrays = (depth: number) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
const objects = (depth: number) => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)) as unknown;

describe('JSON nesting depth', () => {
  it('allows the limit and refuses one more, for arrays and objects alike', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    for (const nest of [arrays, objects]) {
      expect(nestsDeeperThan(nest(MAX_JSON_DEPTH))).toBe(false);
      expect(nestsDeeperThan(nest(MAX_JSON_DEPTH + 1))).toBe(true);
    }
    expect(nestsDeeperThan({ a: [{ b: [1, 'x', null] }], c: {} }, 4)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: [[]] }] }, 4)).toBe(true);
    for (const scalar of [null, 1, 'text', true, undefined]) expect(nestsDeeperThan(scalar)).toBe(false);
  });

  it('measures 100,000 and 1,000,000 deep without a stack overflow', () => {
    for (const depth of [2_000, 100_000, 1_000_000]) {
      expect(nestsDeeperThan(arrays(depth))).toBe(true);
      expect(nestsDeeperThan(objects(depth))).toBe(true);
    }
  });

  it('a wide body within the limit is walked whole', () => {
    const wide = Array.from({ length: 50_000 }, (_, index) => ({ index, tags: [[index]] }));
    expect(nestsDeeperThan(wide)).toBe(false);
    expect(nestsDeeperThan([...wide, arrays(MAX_JSON_DEPTH)])).toBe(true);
  });

  it('is refused as invalid_request 400 naming the body and the rule', () => {
    const error = tooDeep();
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.problems).toEqual([
      { field: 'body', rule: 'max_depth', message: 'JSON may nest objects and arrays at most 64 deep.' },
    ]);
  });
});
