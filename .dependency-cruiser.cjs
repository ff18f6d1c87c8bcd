/**
 * The layer rules of the codebase (docs/architecture.md#rules), checked by `npm run lint`. Value imports count
 * for the server's layers, cycles and the two interfaces' independence (`import type` vanishes at run time); the
 * renderer may not import anything from server/, types included. The engine-branch rule, the docs rule and the
 * README's length are textual: scripts/lint-rules.mjs.
 */
const value = { dependencyTypesNot: ['type-only'] };
const feature = '^server/(cati|optout|unsubscribe|events|demo)(/|\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'db-imports-nothing-above-it',
      comment: 'server/db is the bottom layer: it imports only itself, server/errors.ts and server/config.ts (and common/).',
      severity: 'error',
      from: { path: '^server/db/' },
      to: { path: '^server/', pathNot: ['^server/db/', '^server/errors\\.ts$', '^server/config\\.ts$'], ...value },
    },
    {
      name: 'odata-imports-no-feature',
      comment: 'The OData engine knows no feature module.',
      severity: 'error',
      from: { path: '^server/odata/' },
      to: { path: feature, ...value },
    },
    {
      name: 'auth-audit-http-import-no-feature',
      comment: 'auth, audit and http sit below the features and the OData engine.',
      severity: 'error',
      from: { path: '^server/(auth|audit|http)/' },
      to: { path: '^server/(cati|optout|unsubscribe|odata|events|demo)(/|\\.ts$)', ...value },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles among the product files (value imports).',
      severity: 'error',
      from: { path: '^(server|main|renderer/src|common)/' },
      to: { circular: true, viaOnly: value },
    },
    {
      name: 'renderer-talks-http',
      comment: 'The renderer imports nothing from server/ (it talks HTTP); what both sides need lives in common/.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^server/' },
    },
    {
      name: 'common-imports-only-common',
      comment: 'common/ is shared by the server and the renderer: it imports neither.',
      severity: 'error',
      from: { path: '^common/' },
      to: { path: '^(server|renderer|main)/' },
    },
    {
      name: 'cati-does-not-reach-optout',
      comment: 'The two interfaces stay independent: no chain of value imports leads from server/cati to server/optout.',
      severity: 'error',
      from: { path: '^server/cati/' },
      to: { path: '^server/optout/', reachable: true },
    },
    {
      name: 'optout-does-not-reach-cati',
      comment: 'The two interfaces stay independent: no chain of value imports leads from server/optout to server/cati.',
      severity: 'error',
      from: { path: '^server/optout/' },
      to: { path: '^server/cati/', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|\\.tmp|\\.native)/' },
    // Keep `import type` in the graph (the renderer rule needs it); the value-only rules say so themselves.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.vue', '.mjs', '.js', '.cts'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
