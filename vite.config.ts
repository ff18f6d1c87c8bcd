import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const rendererRoot = fileURLToPath(new URL('./renderer', import.meta.url));

/** Builds the Vue renderer into dist/renderer, which the server serves as static files at `/`. */
export default defineConfig({
  root: rendererRoot,
  base: './',
  plugins: [vue()],
  // vue-i18n's feature flags (docs/screens.md#language): messages compiled at run time without eval (the page's
  // Content-Security-Policy forbids it), no devtools hook in the build.
  define: { __INTLIFY_PROD_DEVTOOLS__: 'false', __INTLIFY_DROP_MESSAGE_COMPILER__: 'false' },
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // No inline scripts or styles: the page's Content-Security-Policy allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
});
