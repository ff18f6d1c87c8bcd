/** Electron entry point (compiled to dist/main/main.js): everything happens in run-desktop.ts. */
import { runDesktop } from './run-desktop.ts';

void runDesktop();
