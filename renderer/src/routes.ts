import { createRouter, createWebHashHistory, type LocationQueryRaw, type RouteComponent } from 'vue-router';
import { setAppRouter } from './router-instance.ts';

export interface ScreenRoute {
  path: string;
  /** The screen's name in the navigation: a catalogue key (i18n/en.ts). */
  label: `nav.${string}`;
  view: () => Promise<RouteComponent>;
}

/** The screens linked in the navigation (a screen is listed only when it works end to end); each loaded when first shown. */
export const ROUTES: ScreenRoute[] = [
  { path: 'floor', label: 'nav.floor', view: () => import('./views/FloorView.vue') },
  { path: 'surveys-today', label: 'nav.surveysToday', view: () => import('./views/SurveysTodayView.vue') },
  { path: 'productivity', label: 'nav.productivity', view: () => import('./views/ProductivityView.vue') },
  { path: 'history', label: 'nav.history', view: () => import('./views/HistoryView.vue') },
  { path: 'interviewers', label: 'nav.interviewers', view: () => import('./views/InterviewersView.vue') },
  { path: 'groups', label: 'nav.groups', view: () => import('./views/GroupsView.vue') },
  { path: 'surveys', label: 'nav.surveys', view: () => import('./views/SurveysView.vue') },
  { path: 'blacklist', label: 'nav.blacklist', view: () => import('./views/BlacklistView.vue') },
  { path: 'optout', label: 'nav.optout', view: () => import('./views/OptOutView.vue') },
  { path: 'settings', label: 'nav.settings', view: () => import('./views/SettingsView.vue') },
];

/** The wallboard (`#/wallboard`): the floor full screen for a TV, without the navigation; linked from the Floor screen. */
export const WALLBOARD: ScreenRoute = { path: 'wallboard', label: 'nav.wallboard', view: () => import('./views/WallboardView.vue') };

/** A route query as text, every value percent-encoded (a space is `%20`, not `+`). */
function stringifyQuery(query: LocationQueryRaw = {}): string {
  return Object.entries(query)
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).filter((v) => v !== null && v !== undefined).map((v) => `${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`))
    .join('&');
}

/**
 * The app's router: hash history (`#/history?tab=calls…`: the path names the screen, the query holds its filters and
 * sort — composables/address-query.ts), one route per screen, anything else goes to the floor.
 */
export function createAppRouter() {
  const router = createRouter({
    history: createWebHashHistory(),
    // Spaces as `%20` (`orderby=Time%20desc`), as screenHref writes them and bookmarks hold them.
    stringifyQuery,
    // A screen opens at its top (the previous screen's scroll position means nothing here); Back returns to where it was.
    // A new screen starts at its top; the same screen whose address only follows its state (filters, the opened
    // survey or group: useAddressQuery) keeps its scroll.
    scrollBehavior: (to, from, saved) => saved ?? (to.path === from.path ? false : { top: 0 }),
    routes: [
      { path: '/', redirect: '/floor' },
      ...[...ROUTES, WALLBOARD].map((r) => ({ path: `/${r.path}`, name: r.path, component: r.view, meta: { label: r.label } })),
      { path: '/:unknown(.*)*', redirect: '/floor' },
    ],
  });
  setAppRouter(router);
  return router;
}
