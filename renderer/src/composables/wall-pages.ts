/**
 * The wallboard's pages (docs/screens.md#truth: everyone on a TV of any size): as many rows as fit below the table's top on
 * this screen, the next page every few seconds, round and round; measured again when the window or the rows change.
 */
import { computed, nextTick, onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue';

/** Room kept under the last row (the page line). */
const BOTTOM_MARGIN_PX = 56;

/**
 * Pages `count()` rows inside `container` (the element holding the table); `everyMs` per page. A page starts where the
 * last one ended (not at page × rows-per-page): rows differ in height (a long survey name wraps), so how many fit changes
 * from page to page, and a page size that grew would otherwise skip the rows between the two sizes.
 */
export function useWallPages(count: () => number, container: Ref<HTMLElement | null>, everyMs: number) {
  const perPage = ref(Number.MAX_SAFE_INTEGER);
  /** The first row shown. */
  const start = ref(0);
  const pages = computed(() => Math.max(1, Math.ceil(count() / perPage.value)));
  /** The page number shown (from 0): where `start` falls, at the size that fits now. */
  const page = computed(() => Math.min(pages.value - 1, Math.floor(start.value / perPage.value)));
  const range = computed<[number, number]>(() => [start.value, start.value + perPage.value]);

  /** Rows that fit: the free height below the table body's top over the tallest row shown (never fewer than one). */
  function measure() {
    const body = container.value?.querySelector('tbody');
    if (!body) return;
    const rows = [...body.querySelectorAll('tr')];
    const tallest = Math.max(1, ...rows.map((r) => r.getBoundingClientRect().height));
    const free = window.innerHeight - (body.getBoundingClientRect().top + window.scrollY) - BOTTOM_MARGIN_PX;
    const fit = Math.max(1, Math.floor(free / tallest));
    if (fit !== perPage.value) perPage.value = fit;
    if (start.value >= count()) start.value = 0;
  }
  const remeasure = () => void nextTick(measure);

  let timer: ReturnType<typeof setInterval> | undefined;
  onMounted(() => {
    window.addEventListener('resize', remeasure);
    remeasure();
    timer = setInterval(() => {
      const next = start.value + perPage.value;
      start.value = next >= count() ? 0 : next;
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
