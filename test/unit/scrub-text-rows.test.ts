import { describe, expect, it } from 'vitest';
import { chooseColumn } from '../../server/scrub/column-rules.ts';

describe('scrub column rules (CONTRACT §16)', () => {
  it('default column: the first header containing phone/tel/number (e-mail: mail), else 1; header when its cell has no digit (no @)', () => {
    expect(chooseColumn([['Name', 'Telephone'], ['a', '1']], 'phone', undefined, undefined)).toEqual({ column: 1, header: true });
    expect(chooseColumn([['0301', 'x']], 'phone', undefined, undefined)).toEqual({ column: 0, header: false });
    expect(chooseColumn([['Name', 'E-Mail'], ['a', 'a@b.c']], 'email', undefined, undefined)).toEqual({ column: 1, header: true });
    expect(chooseColumn([['a@b.c']], 'email', undefined, undefined)).toEqual({ column: 0, header: false });
    expect(chooseColumn([['id', 'x'], ['1', '2']], 'phone', '2', 'false')).toEqual({ column: 1, header: false });
    expect(() => chooseColumn([], 'phone', undefined, undefined)).toThrow(/empty/);
  });
});
