/** payrun's own explanation of why a payout row was not paid, for every code the spec lists for disbursement pay. */
import { describe, expect, it } from 'vitest';
import { EXPLAINED_ITEM_CODES, itemFailureReason, NOT_SENT_REASON, resultCodeInfo } from '../../gateway';

/** Document 3's "Disbursement pay" codes, less success (0), pending (7000, 7002) and request-level duplicates (40, 42). */
const ITEM_FAILURE_CODES = [10, 20, 22, 99, 1007, 1008, 1100, 1507, 4001, 4002, 4003];

describe('why a payout row was not paid', () => {
  it('explains each failure code the spec lists, in English and Vietnamese, in words of its own', () => {
    expect([...EXPLAINED_ITEM_CODES].sort((a, b) => a - b)).toEqual(ITEM_FAILURE_CODES);
    const texts = ITEM_FAILURE_CODES.map((code) => itemFailureReason(code));
    for (const [index, reason] of texts.entries()) {
      expect(reason.en).not.toBe(resultCodeInfo(ITEM_FAILURE_CODES[index]!)?.meaning);
      expect(reason.vi).not.toBe(reason.en);
    }
    expect(new Set(texts.map((reason) => reason.en)).size).toBe(texts.length);
    expect(new Set(texts.map((reason) => reason.vi)).size).toBe(texts.length);
  });

  it('a row without a code, or left with the success code, was never sent to be paid', () => {
    expect(itemFailureReason(null)).toBe(NOT_SENT_REASON);
    expect(itemFailureReason(0)).toBe(NOT_SENT_REASON);
    expect(itemFailureReason(123456).en).toContain('no explanation');
  });
});
