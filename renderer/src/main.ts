import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { createAppRouter } from './routes.ts';
import { initSession, sessionProblem } from './api/client.ts';
import { useNoticesStore } from './stores/notices.ts';
import './styles.css';

/** Finds the session key (bridge or `#token=`) before the first request, then mounts the app. */
async function boot() {
  const session = await initSession().catch(() => null);
  const app = createApp(App, { hasSession: session !== null, sessionProblem: sessionProblem() });
  app.use(createPinia());
  // Made after the session: the UI link's `#token=` has left the address by then.
  const router = createAppRouter();
  // A screen's code is fetched when first opened: with the server gone that fails, and the screen shown stays.
  // Say so, instead of a click that seems to do nothing.
  router.onError((err: Error, to) => {
    useNoticesStore().error(new Error(`The ${String(to.meta.label ?? 'requested')} screen could not be opened (${err.message}); try again when the server answers.`));
  });
  app.use(router);
  await router.isReady();
  app.mount('#app');
}

void boot();
