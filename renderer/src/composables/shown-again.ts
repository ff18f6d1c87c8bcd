/** Screens are kept alive between visits (App.vue's KeepAlive): what to refresh when one is shown again. */
import { onActivated } from 'vue';

/** Runs `action` each time the screen is shown again; its first showing is left to `onMounted`. */
export function onShownAgain(action: () => unknown): void {
  let first = true;
  onActivated(() => {
    if (first) first = false;
    else void action();
  });
}
