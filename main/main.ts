/** Electron entry point (compiled to dist/main/main.js): everything happens in desktop-app.ts. */
import { runDesktop } from './desktop-app.ts';

void runDesktop();
