import { createRequire } from 'node:module';

type PhoneLib = typeof import('libphonenumber-js');
type Examples = typeof import('libphonenumber-js/examples.mobile.json').default;

const require = createRequire(import.meta.url);
let lib: PhoneLib | undefined;
let examples: Examples | undefined;

/**
 * libphonenumber-js (its CommonJS build, the same code and "min" metadata as the ES one), loaded on first use.
 * Imported statically, its ES build was 113 modules, each passing the TypeScript loader's hooks at start: about a
 * third of the server's cold start, for something no request needs before a number is normalised.
 */
export function phoneLib(): PhoneLib {
  lib ??= require('libphonenumber-js') as PhoneLib;
  return lib;
}

/** The example mobile number of every region (for showing how a region stores numbers), loaded on first use. */
export function phoneExamples(): Examples {
  examples ??= require('libphonenumber-js/examples.mobile.json') as Examples;
  return examples;
}
