const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Throws unless every name is a plain lower-case SQL identifier (table and column names come from code, never input). */
export function assertPlainIdentifiers(names: readonly string[]): void {
  for (const name of names) if (!IDENTIFIER.test(name)) throw new Error(`Not a plain SQL identifier: ${name}`);
}
