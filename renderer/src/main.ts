import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { createAppRouter } from './routes.ts';
import { initSession, sessionProblem } from './api/client.ts';
import { applyLanguage, i18n, loadOsLocale, t } from './i18n/index.ts';
import { useNoticesStore } from './stores/notices.ts';
import './styles.css';

/** Finds the session key (bridge or `#token=`) before the first request, then mounts the app. */
async function boot() {
  const session = await initSession().catch(() => null);
  // The language before the first render: this browser's choice or languages, or the OS's (the person's own follows /auth/me).
  await loadOsLocale();
  applyLanguage();
  const app = createApp(App, { hasSession: session !== null, sessionProblem: sessionProblem() });
  app.use(createPinia());
  app.use(i18n);
  // Made after the session: the UI link's `#token=` has left the address by then.
  const router = createAppRouter();
  // A screen's code is fetched when first opened: with the server gone that fails, and the screen shown stays.
  // Say so, instead of a click that seems to do nothing.
  router.onError((err: Error, to) => {
    const screen = typeof to.meta.label === 'string' ? t(to.meta.label) : t('app.screenFallback');
    useNoticesStore().error(new Error(t('app.screenFailed', { screen, message: err.message })));
  });
  app.use(router);
  await router.isReady();
  app.mount('#app');
}

void boot();
