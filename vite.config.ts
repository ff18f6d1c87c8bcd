import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { defineConfig, searchForWorkspaceRoot } from 'vite';

const rendererRoot = fileURLToPath(new URL('./renderer', import.meta.url));
/** Code the renderer shares with the server (the file intake's pure rules, docs/files.md), outside the renderer's root. */
const commonRoot = fileURLToPath(new URL('./common', import.meta.url));

/** Builds the Vue renderer into dist/renderer, which the server serves as static files at `/`. */
export default defineConfig({
  root: rendererRoot,
  base: './',
  plugins: [vue()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // No inline scripts or styles: the page's Content-Security-Policy allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: { host: '127.0.0.1', port: 5173, strictPort: true, fs: { allow: [searchForWorkspaceRoot(rendererRoot), commonRoot] } },
});
