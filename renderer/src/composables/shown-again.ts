/** Screens are kept alive between visits (App.vue's KeepAlive): what to refresh when one is shown again. */
import { onActivated, onDeactivated, onMounted, onUnmounted, ref, type Ref } from 'vue';

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

/** Whether the calling component's screen is shown: from its setup until it is kept alive but hidden, or unmounted. */
export function useShown(): Readonly<Ref<boolean>> {
  const shown = ref(true);
  onActivated(() => (shown.value = true));
  onDeactivated(() => (shown.value = false));
  onUnmounted(() => (shown.value = false));
  return shown;
}
