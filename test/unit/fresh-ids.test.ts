import { describe, expect, it } from 'vitest';
import { userIdProblem } from '../../gateway/ids';
import { freshId } from '../support/ids';

describe('freshId, the random ids tests send', () => {
  it('never ends like a derived orderId, even with a tail short enough to end like one often', () => {
    // With 4 random hex digits after `d-b`, a plain tail would be all digits about one time in six.
    const refused = Array.from({ length: 2_000 }, () => freshId('d-b', 4)).filter(
      (id) => userIdProblem('disbursement', id) !== undefined,
    );
    expect(refused).toEqual([]);
  });
});
