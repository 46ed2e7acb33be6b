// Column sorting kept in the URL (`sort`, `order`), shared by the summary list and the lineage tables: a header
// click sorts by its column ascending, then descending, then back to the page's default order; `ariaSort` gives
// the header's aria-sort.
import type { Ref } from 'vue'

export type SortDir = 'asc' | 'desc'

export function useSortState<K extends string>(sortKey: Ref<K | ''>, sortDir: Ref<SortDir>) {
  function toggleSort(key: K): void {
    if (sortKey.value !== key) {
      sortKey.value = key
      sortDir.value = 'asc'
    } else if (sortDir.value === 'asc') {
      sortDir.value = 'desc'
    } else {
      sortKey.value = ''
      sortDir.value = 'asc'
    }
  }
  function ariaSort(key: K): 'ascending' | 'descending' | 'none' {
    return sortKey.value === key ? (sortDir.value === 'asc' ? 'ascending' : 'descending') : 'none'
  }
  return { toggleSort, ariaSort }
}
