/**
 * The wallboard's pages (CONTRACT §17: everyone on a TV of any size): as many rows as fit below the table's top on
 * this screen, the next page every few seconds, round and round; measured again when the window or the rows change.
 */
import { computed, nextTick, onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue';

/** Room kept under the last row (the page line). */
const BOTTOM_MARGIN_PX = 56;

/** Pages `count()` rows inside `container` (the element holding the table); `everyMs` per page. */
export function useWallPages(count: () => number, container: Ref<HTMLElement | null>, everyMs: number) {
  const perPage = ref(Number.MAX_SAFE_INTEGER);
  const page = ref(0);
  const pages = computed(() => Math.max(1, Math.ceil(count() / perPage.value)));
  const range = computed<[number, number]>(() => [page.value * perPage.value, (page.value + 1) * perPage.value]);

  /** Rows that fit: the free height below the table body's top over the tallest row shown (never fewer than one). */
  function measure() {
    const body = container.value?.querySelector('tbody');
    if (!body) return;
    const rows = [...body.querySelectorAll('tr')];
    const tallest = Math.max(1, ...rows.map((r) => r.getBoundingClientRect().height));
    const free = window.innerHeight - (body.getBoundingClientRect().top + window.scrollY) - BOTTOM_MARGIN_PX;
    const fit = Math.max(1, Math.floor(free / tallest));
    if (fit !== perPage.value) perPage.value = fit;
    if (page.value >= pages.value) page.value = 0;
  }
  const remeasure = () => void nextTick(measure);

  let timer: ReturnType<typeof setInterval> | undefined;
  onMounted(() => {
    window.addEventListener('resize', remeasure);
    remeasure();
    timer = setInterval(() => {
      page.value = (page.value + 1) % pages.value;
      remeasure();
    }, everyMs);
  });
  onBeforeUnmount(() => {
    window.removeEventListener('resize', remeasure);
    clearInterval(timer);
  });
  watch(count, remeasure);

  return { page, pages, range, perPage };
}
