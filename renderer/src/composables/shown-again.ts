/** Screens are kept alive between visits (App.vue's KeepAlive): what to refresh when one is shown again. */
import { onActivated, onMounted } from 'vue';

/** Runs `action` each time the screen is shown again; its first showing is left to `onMounted`. */
export function onShownAgain(action: () => unknown): void {
  let first = true;
  onActivated(() => {
    if (first) first = false;
    else void action();
  });
}

/** Runs `action` when the screen is first shown and each time it is shown again: its data is current whenever seen. */
export function onShown(action: () => unknown): void {
  onMounted(() => void action());
  onShownAgain(action);
}
