import { computed, ref, type Ref } from 'vue';
import { request, type RequestOptions } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';
import type { TableSort } from '../composables/table-sort.ts';
import { useResourceState } from './resource-state.ts';

type QueryParams = NonNullable<RequestOptions['query']>;

/** One page as a list's API answers it: its rows and how many there are in all. */
export interface FetchedPage<T> {
  items: T[];
  total: number;
}

/**
 * The shared pager of every paged list: the rows of one page, the total, the offset and its resource state
 * (loading / ready / empty / error / offline, the last good page kept and marked stale after a failure). `fetchPage`
 * reads the page at `offset` of `size` rows (OData `$top`/`$skip`, or an API's own `$page`). Only the newest load's
 * answer (or error) is shown, and the offset moves only when its rows arrived. A page past the first that came back
 * empty while rows remain (its last row was deleted) is replaced by the last page.
 */
export function usePager<T>(fetchPage: (offset: number, size: number) => Promise<FetchedPage<T>>, initialPageSize = 50) {
  const items = ref<T[]>([]) as Ref<T[]>;
  const total = ref(0);
  const skip = ref(0);
  const pageSize = ref(initialPageSize);
  const resource = useResourceState();
  /** Nothing received yet for what is asked now (before the first load, or while one runs). */
  const loading = computed(() => resource.pending);
  let latest = 0;

  /**
   * Loads the page at `offset` (default: the current one); resolves true when its answer is the one shown.
   * `alongside` is a request whose answer belongs with the rows (names they refer to): they are shown once it arrived too.
   */
  const load = (offset = skip.value, alongside?: Promise<unknown>): Promise<boolean> =>
    resource.track(() => loadPage(offset, true, alongside), () => items.value.length === 0);

  async function loadPage(offset: number, mayStepBack: boolean, alongside?: Promise<unknown>): Promise<boolean> {
    const seq = ++latest;
    let page: FetchedPage<T>;
    try {
      [page] = await Promise.all([fetchPage(offset, pageSize.value), alongside]);
    } catch (err) {
      if (seq !== latest) return false; // a newer load owns the screen now
      throw err;
    }
    if (seq !== latest) return false;
    if (mayStepBack && page.items.length === 0 && offset > 0 && page.total > 0) {
      return await loadPage(Math.floor((page.total - 1) / pageSize.value) * pageSize.value, false);
    }
    items.value = page.items;
    total.value = page.total;
    skip.value = offset;
    return true;
  }

  /** Loads the page at `offset` (never below 0); for the pager. */
  const goTo = (offset: number) => load(Math.max(0, offset));

  /** Empties the list at once (before a load of something else, e.g. another history tab). */
  function clear() {
    items.value = [];
    total.value = 0;
    resource.reset();
  }

  return { items, total, skip, pageSize, loading, resource, load, goTo, clear };
}

/** What a paged list asks for; every function is read when a load starts, so the answer matches the state of that moment. */
export interface PagedCollectionOptions {
  /** `$filter`; undefined = every row. */
  filter?: () => string | undefined;
  /** `$orderby`. */
  orderby?: string | (() => string | undefined);
  /** The table's column sort: its `$orderby` wins over `orderby`. */
  sort?: TableSort;
  /** `$select`. */
  select?: string;
  /** Further query parameters (the function parameters of `/cati/callhistorywithvariables`). */
  params?: () => QueryParams;
  pageSize?: number;
}

/** The shared pager over an OData collection with `$top`/`$skip`/`$count`. */
export function usePagedCollection<T>(path: string | (() => string), options: PagedCollectionOptions = {}) {
  function queryFor(offset: number, size: number): QueryParams {
    const { filter, orderby, select, params, sort } = options;
    return {
      ...params?.(),
      $filter: filter?.(),
      $orderby: sort ? sort.orderby() : typeof orderby === 'function' ? orderby() : orderby,
      $select: select,
      $top: size,
      $skip: offset,
      $count: true,
    };
  }
  return usePager<T>(async (offset, size) => {
    const page = await request<ODataCollection<T>>('GET', typeof path === 'function' ? path() : path, { query: queryFor(offset, size) });
    return { items: page.value, total: page['@odata.count'] ?? page.value.length };
  }, options.pageSize);
}
