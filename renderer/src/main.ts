import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { createAppRouter } from './routes.ts';
import { initSession, sessionProblem } from './api/client.ts';
import './styles.css';

/** Finds the session key (bridge or `#token=`) before the first request, then mounts the app. */
async function boot() {
  const session = await initSession().catch(() => null);
  const app = createApp(App, { hasSession: session !== null, sessionProblem: sessionProblem() });
  app.use(createPinia());
  // Made after the session: the UI link's `#token=` has left the address by then.
  const router = createAppRouter();
  app.use(router);
  await router.isReady();
  app.mount('#app');
}

void boot();
