import js from '@eslint/js';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'test-results/', 'renderer/dist/', 'release/', '.tmp/', '.native/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Every database call is asynchronous (server/db/store.ts): a promise nobody awaits is a lost error or a
    // write that races its answer, so the type-aware rule checks the server side.
    files: ['server/**/*.ts', 'main/**/*.ts', 'common/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    // The renderer runs in a browser page (Vue single-file components with TypeScript).
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser }, parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
    rules: {
      // Compact tables and forms: several short attributes per line read better than one per line.
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': ['error', { html: { void: 'always', normal: 'never', component: 'always' } }],
      'vue/html-closing-bracket-newline': 'off',
      'vue/multi-word-component-names': 'off',
    },
  },
  {
    // Every text a person reads comes from the catalogues (renderer/src/i18n/, docs/screens.md#language): an English
    // word written straight into a template would show untranslated in Dutch and German. Symbols and punctuation may.
    files: ['renderer/**/*.vue'],
    rules: {
      'vue/no-bare-strings-in-template': ['error', {
        allowlist: ['(', ')', ',', '.', '&', '+', '-', '=', '*', '/', '#', '%', '!', '?', ':', ';', '[', ']', '{', '}', '<', '>', '•', '·', '…', '—', '–', '|', '→', '←', '↑', '↓', '▲', '▼', '×', '✓', '✕', '⚠', '◷', '☎', '☕', '‹', '›', '⋯', '▾', '"', "'", '“', '”', '‘', '’', '@', '$', '^', '~', '_'],
      }],
    },
  },
  {
    // The preload script is CommonJS (sandboxed preloads cannot be ES modules).
    files: ['main/preload.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
