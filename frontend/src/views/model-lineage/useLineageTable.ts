// The table state both lineage pages keep in the URL (cols, sort, order, page, size): the columns shown (`defaults`
// while the URL names none, among the page's `columns`), the sort (useSortState's cycle) and the page.
import { computed, type Ref } from 'vue'
import { codecs, useQueryState } from '@/composables/useQueryState'
import { useSortState, type SortDir } from '@/composables/useSortState'
import type { Column } from './lineageTable'

export function useLineageTable(columns: Ref<Column[]>, defaults: Ref<string[]>) {
  const { param } = useQueryState()
  const colsParam = param('cols', codecs.list())
  const sortKey = param('sort', codecs.string(''))
  const sortDir = param('order', codecs.oneOf<SortDir>(['asc', 'desc'], 'asc'))
  const pageNo = param('page', codecs.number(1, 1))
  const size = param('size', codecs.number(20, 1, 100))
  const page = computed({ get: () => pageNo.value - 1, set: (v: number) => (pageNo.value = v + 1) })
  const selectedKeys = computed<string[]>({
    get: () => {
      const keys = new Set(columns.value.map((c) => c.key))
      return (colsParam.value ?? defaults.value).filter((k) => keys.has(k))
    },
    set: (v) => {
      colsParam.value = JSON.stringify(v) === JSON.stringify(defaults.value) ? null : v
    },
  })
  const shown = computed(() => {
    const set = new Set(selectedKeys.value)
    return columns.value.filter((c) => set.has(c.key))
  })
  const { toggleSort } = useSortState<string>(sortKey, sortDir)
  return { sortKey, sortDir, size, page, selectedKeys, shown, toggleSort }
}
