import { ref, type Component } from 'vue';
import { splitHash } from './composables/address-query.ts';
import FloorView from './views/FloorView.vue';
import BlacklistView from './views/BlacklistView.vue';
import GroupsView from './views/GroupsView.vue';
import HistoryView from './views/HistoryView.vue';
import InterviewersView from './views/InterviewersView.vue';
import OptOutView from './views/OptOutView.vue';
import ProductivityView from './views/ProductivityView.vue';
import SettingsView from './views/SettingsView.vue';
import SurveysTodayView from './views/SurveysTodayView.vue';
import SurveysView from './views/SurveysView.vue';
import WallboardView from './views/WallboardView.vue';

export interface Route {
  path: string;
  label: string;
  view: Component;
}

/** The screens linked in the navigation (a screen is listed only when it works end to end). */
export const ROUTES: Route[] = [
  { path: 'floor', label: 'Floor', view: FloorView },
  { path: 'surveys-today', label: 'Surveys today', view: SurveysTodayView },
  { path: 'productivity', label: 'Productivity', view: ProductivityView },
  { path: 'history', label: 'History', view: HistoryView },
  { path: 'interviewers', label: 'Interviewers', view: InterviewersView },
  { path: 'groups', label: 'Groups', view: GroupsView },
  { path: 'surveys', label: 'Surveys', view: SurveysView },
  { path: 'blacklist', label: 'Blacklist', view: BlacklistView },
  { path: 'optout', label: 'Opt-out lists', view: OptOutView },
  { path: 'settings', label: 'Settings', view: SettingsView },
];

/** The wallboard (`#/wallboard`): the floor full screen for a TV, without the navigation; linked from the Floor screen. */
export const WALLBOARD: Route = { path: 'wallboard', label: 'Wallboard', view: WallboardView };

// `#/history?tab=calls…`: the part before `?` names the screen, the query holds its filters (composables/address-query.ts).
const fromHash = (): Route => [...ROUTES, WALLBOARD].find((r) => splitHash().path === r.path) ?? ROUTES[0]!;

/** The current screen, following `#/<path>` in the address. */
export function useHashRoute() {
  const current = ref<Route>(fromHash());
  window.addEventListener('hashchange', () => {
    current.value = fromHash();
  });
  return current;
}
