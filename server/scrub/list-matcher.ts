/**
 * The parse worker's side of the list: the index built from the entries the main thread sends, and the
 * cells a removed row gains after its own (the extra columns of docs/optout-api.md#scrubs, without `Normalized`, which
 * the worker adds): `blacklist, MatchedId, MatchedNumber, MatchType` for a call list, `email|domain,
 * MatchedId, MatchedList` for a mailing list, `invalid` and blanks for a key that is not valid.
 */
import { EmailIndex } from './email-index.ts';
import { forEachEntry } from './list-entries.ts';
import { PhoneIndex } from './phone-index.ts';
import type { EntriesChunk, ScrubKind } from './scrub-protocol.ts';

export interface ListMatcher {
  add(chunk: EntriesChunk): void;
  /** Call once after the last `add`. */
  seal(): void;
  /** The extra cells of a removed row, or undefined when the key is not on the list. */
  match(key: string): string[] | undefined;
  /** The extra cells of a row whose key is invalid. */
  readonly invalid: readonly string[];
}

function phoneMatcher(): ListMatcher {
  const index = new PhoneIndex();
  return {
    add: (chunk) => forEachEntry(chunk, (id, value, code) => index.add(id, value, code === 1 ? 'StartWith' : 'Equal')),
    seal: () => void index.seal(),
    match(key) {
      const m = index.match(key);
      return m && ['blacklist', String(m.id), m.number, m.type];
    },
    invalid: ['invalid', '', '', ''],
  };
}

function emailMatcher(): ListMatcher {
  const index = new EmailIndex();
  return {
    add: (chunk) => forEachEntry(chunk, (id, value, code, listId) => index.add(code === 1 ? 'domain' : 'email', value, id, listId)),
    seal: () => undefined,
    match(key) {
      const m = index.match(key);
      return m && [m.by, String(m.id), String(m.listId)];
    },
    invalid: ['invalid', '', ''],
  };
}

/** An empty matcher for a kind of scrub. */
export const listMatcher = (kind: ScrubKind): ListMatcher => (kind === 'phone' ? phoneMatcher() : emailMatcher());
