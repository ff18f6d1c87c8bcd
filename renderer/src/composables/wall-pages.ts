/**
 * The wallboard's pages (docs/screens.md#wallboard: everyone on a TV of any size): as many rows as fit below the
 * table's top on this screen, the next page every few seconds, round and round; measured again when the window or
 * the rows change.
 *
 * The order is frozen for one round of pages: the live floor re-sorts all the time (a state changes, a time in
 * state grows), and paging over the live order would let a person move from a page not yet shown to one already
 * shown. So a round pages over the order of its start; who logs in during the round joins at its end, who logs
 * out leaves a gap (the others keep their places); the next round starts from the live order again.
 */
import { computed, nextTick, onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue';

/** Room kept under the last row (the page line). */
const BOTTOM_MARGIN_PX = 56;

/**
 * Pages `rows()` (keyed by `key`) inside `container` (the element holding the table); `everyMs` per page. A page
 * starts where the last one ended (not at page × rows-per-page): rows differ in height (a long survey name wraps),
 * so how many fit changes from page to page, and a page size that grew would otherwise skip the rows between the
 * two sizes.
 */
export function useWallPages<T, K>(rows: () => readonly T[], key: (row: T) => K, container: Ref<HTMLElement | null>, everyMs: number) {
  const perPage = ref(Number.MAX_SAFE_INTEGER);
  /** This round's order: the live order when it began, then everyone who appeared since, in order of arrival. */
  const order = ref<K[]>([]) as Ref<K[]>;
  /** The place in `order` of the first row shown. */
  const start = ref(0);

  /** Appends whoever is on the floor but not yet in this round's order (joins at the end of the round). */
  function join() {
    const known = new Set(order.value);
    const newcomers = rows().map(key).filter((k) => !known.has(k));
    if (newcomers.length) order.value = [...order.value, ...newcomers];
  }
  /** A new round: the live order as it is now. */
  function freeze() {
    order.value = rows().map(key);
    start.value = 0;
  }

  const pages = computed(() => Math.max(1, Math.ceil(order.value.length / perPage.value)));
  /** The page number shown (from 0): where `start` falls, at the size that fits now. */
  const page = computed(() => Math.min(pages.value - 1, Math.floor(start.value / perPage.value)));
  /** The rows of the page shown, with their live figures; who logged out since the round began is left out. */
  const shown = computed<T[]>(() => {
    const byKey = new Map(rows().map((r) => [key(r), r]));
    return order.value
      .slice(start.value, start.value + perPage.value)
      .map((k) => byKey.get(k))
      .filter((r): r is T => r !== undefined);
  });

  /** Rows that fit: the free height below the table body's top over the tallest row shown (never fewer than one). */
  function measure() {
    const body = container.value?.querySelector('tbody');
    if (!body) return;
    const trs = [...body.querySelectorAll('tr')];
    const tallest = Math.max(1, ...trs.map((r) => r.getBoundingClientRect().height));
    const free = window.innerHeight - (body.getBoundingClientRect().top + window.scrollY) - BOTTOM_MARGIN_PX;
    const fit = Math.max(1, Math.floor(free / tallest));
    if (fit !== perPage.value) perPage.value = fit;
  }
  const remeasure = () => void nextTick(measure);

  let timer: ReturnType<typeof setInterval> | undefined;
  onMounted(() => {
    window.addEventListener('resize', remeasure);
    freeze();
    remeasure();
    timer = setInterval(() => {
      join();
      const next = start.value + perPage.value;
      if (next >= order.value.length) freeze();
      else start.value = next;
      remeasure();
    }, everyMs);
  });
  onBeforeUnmount(() => {
    window.removeEventListener('resize', remeasure);
    clearInterval(timer);
  });
  watch(rows, () => {
    join();
    remeasure();
  });

  return { page, pages, shown, perPage };
}
