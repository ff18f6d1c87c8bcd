/** The shape every catalogue has: the English catalogue's keys, each a text (docs/screens.md#language). */

/** A catalogue with exactly the keys of `T` (a missing or extra key is a type error in `nl.ts` and `de.ts`). */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> };
