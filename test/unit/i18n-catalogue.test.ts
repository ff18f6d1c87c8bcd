/**
 * The screens' catalogues (docs/screens.md#language): every language has every key of the English one and no
 * other, with the same placeholders and the same number of plural forms; every key is used in renderer/src.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { de } from '../../renderer/src/i18n/de.ts';
import { en } from '../../renderer/src/i18n/en.ts';
import { nl } from '../../renderer/src/i18n/nl.ts';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'renderer', 'src');

/** `{ a: { b: 'x' } }` → `[['a.b', 'x']]`. */
function flatten(tree: object, prefix = ''): [string, unknown][] {
  return Object.entries(tree).flatMap(([k, v]): [string, unknown][] =>
    v !== null && typeof v === 'object' ? flatten(v as object, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
  );
}

/** The placeholders of a text (`{count}`), sorted; `{'@'}`-style literals are not placeholders. */
const placeholders = (text: string) => [...text.matchAll(/\{\s*([A-Za-z_][\w]*)\s*\}/g)].map((m) => m[1]).sort();
/** How many plural forms a text has (`a | b | c` → 3); a literal `{'|'}` does not count. */
const forms = (text: string) => text.replace(/\{'[^']*'\}/g, '').split('|').length;

/** Every .ts and .vue file under `dir`, except the catalogues themselves. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|vue)$/.test(name) && !/i18n[\\/](en|nl|de)\.ts$/.test(path) ? [path] : [];
  });
}

const english = new Map(flatten(en));
const catalogues = { nl, de };

describe('the screens\' catalogues', () => {
  it('have English texts that are all non-empty strings', () => {
    expect(english.size).toBeGreaterThan(10);
    for (const [key, text] of english) expect(typeof text === 'string' && text.trim() !== '', key).toBe(true);
  });

  for (const [language, catalogue] of Object.entries(catalogues)) {
    describe(language, () => {
      const texts = new Map(flatten(catalogue));

      it('has exactly the keys of the English catalogue', () => {
        expect([...english.keys()].filter((k) => !texts.has(k)), 'missing').toEqual([]);
        expect([...texts.keys()].filter((k) => !english.has(k)), 'not in English').toEqual([]);
      });

      it('has a non-empty text with the same placeholders and plural forms for each key', () => {
        for (const [key, source] of english) {
          const text = texts.get(key);
          expect(typeof text === 'string' && text.trim() !== '', `${language} ${key} is empty`).toBe(true);
          expect(placeholders(String(text)), `${language} ${key} placeholders`).toEqual(placeholders(String(source)));
          expect(forms(String(text)), `${language} ${key} plural forms`).toBe(forms(String(source)));
        }
      });
    });
  }

  it('uses every key somewhere in renderer/src (quoted as a whole)', () => {
    const code = sources(SRC).map((f) => readFileSync(f, 'utf8')).join('\n');
    const used = new Set([...code.matchAll(/(['"`])([a-zA-Z][\w]*(?:\.[\w]+)+)\1/g)].map((m) => m[2]));
    expect([...english.keys()].filter((k) => !used.has(k)), 'keys no screen uses').toEqual([]);
  });
});
