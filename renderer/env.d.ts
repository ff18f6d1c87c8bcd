/// <reference types="vite/client" />
import type { CatiBridge } from '../main/bridge-api.ts';

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

declare global {
  interface Window {
    /** Present only in the desktop app (preload bridge). */
    cati?: CatiBridge;
  }
}
