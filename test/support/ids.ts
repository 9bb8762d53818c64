import { randomBytes } from 'node:crypto';
import { reservedEndingOf } from '../../gateway/ids';

/**
 * A fresh id: `prefix` and `randomChars` random hex digits, never ending like an orderId payrun derives
 * (`-b74`, `-c3`, ...), which the API refuses as `reserved_ending`. A plain random tail does end that way
 * now and then (one run in forty for `d-` and a UUID's first 12 characters), and a test must not fail by chance.
 */
export function freshId(prefix: string, randomChars = 8): string {
  for (;;) {
    const id =
      prefix +
      randomBytes(Math.ceil(randomChars / 2))
        .toString('hex')
        .slice(0, randomChars);
    if (!reservedEndingOf(id)) return id;
  }
}
