// The model page's pure helpers (modelFiles.test.ts): which views a kind of file has, the checkpoint
// that accompanies a MindIR, sorting a parameter table by any column, and where a node is in IR text.
import type { ModelFile, ModelKind, ModelParameter } from '@/api/debuggerTypes'

export type ModelTab = 'graph' | 'nodes' | 'parameters' | 'compare' | 'text' | 'render'

/** The views of each kind of file, the first one shown by default. */
export function tabsFor(kind: ModelKind): ModelTab[] {
  switch (kind) {
    case 'mindir':
    case 'onnx':
    case 'ms':
      return ['graph', 'nodes', 'parameters', 'compare']
    case 'checkpoint':
    case 'safetensors':
    case 'safetensors-index':
    case 'safetensors-ranks':
      return ['parameters', 'compare']
    case 'ir':
      return ['text', 'graph']
    case 'pb':
      return ['graph', 'nodes']
    case 'dot':
      return ['render', 'text']
  }
}

function dirOf(id: string): string {
  const i = id.lastIndexOf('/')
  return i < 0 ? '' : id.slice(0, i)
}
function stemOf(id: string): string {
  const base = id.slice(id.lastIndexOf('/') + 1)
  const dot = base.lastIndexOf('.')
  return dot <= 0 ? base : base.slice(0, dot)
}

/**
 * The checkpoint whose statistics a MindIR's parameters show: `<stem>.ckpt` beside it, else a
 * checkpoint beside it whose name starts with the stem (`lenet_trained.ckpt`), else any checkpoint
 * beside it; null when its folder has none.
 */
export function companionCheckpoint(modelId: string, files: readonly ModelFile[]): string | null {
  const dir = dirOf(modelId)
  const stem = stemOf(modelId)
  const beside = files.filter((f) => f.kind === 'checkpoint' && dirOf(f.model_id) === dir).map((f) => f.model_id)
  return beside.find((id) => stemOf(id) === stem) ?? beside.find((id) => stemOf(id).startsWith(stem)) ?? beside[0] ?? null
}

/** A file of weights by name: a `.ckpt`, a `.safetensors`, a sharded set (index) or a distributed job's rank shards. */
export function isWeightFile(kind: ModelKind): boolean {
  return kind === 'checkpoint' || kind.startsWith('safetensors')
}

/** A model whose graph carries its own weights: MindIR, ONNX (initializers), MindSpore Lite (constant tensors). */
export function isGraphWithWeights(kind: ModelKind): boolean {
  return kind === 'mindir' || kind === 'onnx' || kind === 'ms'
}

/** Files that can be compared by parameter name with `modelId`: the other weight files and models with weights. */
export function comparable(modelId: string, files: readonly ModelFile[]): ModelFile[] {
  return files.filter((f) => f.model_id !== modelId && (isWeightFile(f.kind) || isGraphWithWeights(f.kind)))
}

export type SortDir = 'asc' | 'desc'

/** A column of SortTable: how its cells are shown (and sorted: see sortRows). */
export interface Column {
  key: string
  label: string
  kind: 'text' | 'num' | 'int' | 'shape' | 'bool' | 'mono'
  title?: string
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

function sortValue(v: unknown): number | string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'number') return Number.isNaN(v) ? null : v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (Array.isArray(v)) return v.reduce((n: number, x) => n * Number(x), 1) // a shape: its number of elements
  return String(v)
}

/**
 * Rows sorted by one column: numbers by value, text naturally (`fc2` before `fc10`), shapes by their
 * number of elements; missing values last in both directions; ties keep the file's order.
 */
export function sortRows<T extends Record<string, unknown>>(rows: readonly T[], key: string, dir: SortDir): T[] {
  const sign = dir === 'asc' ? 1 : -1
  return rows
    .map((row, i) => ({ row, i, v: sortValue(row[key]) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1
      const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : collator.compare(String(a.v), String(b.v))
      return c ? sign * c : a.i - b.i
    })
    .map((x) => x.row)
}

/** The next sort of a header click: ascending, descending, then the file's order. */
export function nextSort(current: { key: string; dir: SortDir } | null, key: string): { key: string; dir: SortDir } | null {
  if (!current || current.key !== key) return { key, dir: 'asc' }
  return current.dir === 'asc' ? { key, dir: 'desc' } : null
}

export function nonFinite(p: Pick<ModelParameter, 'nan_count' | 'pos_inf_count' | 'neg_inf_count'>): boolean {
  return (p.nan_count ?? 0) + (p.pos_inf_count ?? 0) + (p.neg_inf_count ?? 0) > 0
}

/**
 * A MindIR's parameters (name, shape, dtype) with the statistics of the same names in another file
 * (an accompanying checkpoint); `missing` where that file has no such name.
 */
export function withStatistics(
  params: readonly { name: string; shape: number[]; dtype: string }[],
  stats: readonly ModelParameter[],
): (ModelParameter & { missing: boolean; stats_shape: number[] | null })[] {
  const byName = new Map(stats.map((s) => [s.name, s]))
  return params.map((p) => {
    const s = byName.get(p.name)
    return {
      min: null,
      max: null,
      mean: null,
      std: null,
      nan_count: null,
      ...s,
      name: p.name,
      shape: p.shape,
      dtype: p.dtype,
      missing: !s,
      stats_shape: s ? s.shape : null,
    }
  })
}

const STATEMENT = /^\s*(%[\w.-]+(\([^)]*\))?\s*=|Return\()/

/**
 * The line of IR text where a node is: the statement (`%1(x) = Conv2D(...)`) above its
 * `# Fullname with scope: (<full name>)` comment, else the first line that mentions the full name or
 * the name; -1 when none does.
 */
export function nodeLine(lines: readonly string[], fullName: string, name: string): number {
  if (fullName) {
    const tag = `Fullname with scope: (${fullName})`
    const i = lines.findIndex((l) => l.includes(tag))
    if (i >= 0) {
      for (let j = i - 1; j >= Math.max(0, i - 12); j--) if (STATEMENT.test(lines[j])) return j
      return i
    }
    const j = lines.findIndex((l) => l.includes(fullName))
    if (j >= 0) return j
  }
  return name ? lines.findIndex((l) => l.includes(name)) : -1
}

/** Model files by folder (`./mindir`), folders and files in path order. */
export function byFolder(files: readonly ModelFile[]): { folder: string; files: ModelFile[] }[] {
  const map = new Map<string, ModelFile[]>()
  for (const f of files) {
    const d = dirOf(f.model_id) || '.'
    if (!map.has(d)) map.set(d, [])
    map.get(d)!.push(f)
  }
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) // paths: code point order, as a shell lists them
  return [...map.entries()]
    .sort((a, b) => byPath(a[0], b[0]))
    .map(([folder, fs]) => ({ folder, files: [...fs].sort((a, b) => byPath(a.model_id, b.model_id)) }))
}

export function fileName(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1)
}

/** The line of format facts an ONNX or MindSpore Lite model shows beside its name: an i18n key and its values. */
export function formatFacts(
  kind: ModelKind,
  facts: Record<string, unknown> | undefined,
): { key: 'models.onnxFacts' | 'models.msFacts'; values: Record<string, string | number> } | null {
  if (!facts) return null
  if (kind === 'onnx') {
    const opsets = Object.entries((facts.opset_import ?? {}) as Record<string, unknown>)
      .map(([domain, version]) => `${domain} ${String(version)}`)
      .join(', ')
    const producer = [facts.producer_name, facts.producer_version].filter((x) => typeof x === 'string' && x).join(' ')
    return { key: 'models.onnxFacts', values: { ir: Number(facts.ir_version ?? 0), opsets: opsets || '-', producer: producer || '-' } }
  }
  if (kind === 'ms') {
    return {
      key: 'models.msFacts',
      values: { version: String(facts.version || '-'), fmk: String(facts.fmk_name ?? '-'), tensors: Number(facts.tensor_count ?? 0), consts: Number(facts.const_tensor_count ?? 0) },
    }
  }
  return null
}

/** What a reader said it did not read (`facts.not_read`), e.g. sparse initializers of an ONNX model. */
export function notRead(facts: Record<string, unknown> | undefined): string[] {
  return Array.isArray(facts?.not_read) ? facts.not_read.map(String) : []
}
