/** COPY's text format (server/db/pg-copy.ts): what each kind of value becomes in a line PostgreSQL reads back as it was. */
import { describe, expect, it } from 'vitest';
import { copyText } from '../../server/db/pg-copy.ts';

describe('copyText', () => {
  it('writes null and undefined as \\N, booleans as 1/0, numbers and bigints as their digits', () => {
    expect([null, undefined, true, false, 0, -12.5, 2147483648, 12n].map(copyText)).toEqual(['\\N', '\\N', '1', '0', '0', '-12.5', '2147483648', '12']);
  });

  it('escapes backslash, tab, newline and carriage return, and leaves every other character as it is', () => {
    expect(copyText('plain text, “quotes” and Zoë')).toBe('plain text, “quotes” and Zoë');
    expect(copyText('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyText('\\N')).toBe('\\\\N'); // the text \N, not a null
  });

  it('writes a Buffer as bytea hex', () => {
    expect(copyText(Buffer.from([0, 255, 16]))).toBe('\\\\x00ff10');
  });
});
