import { describe, expect, it } from 'vitest'
import { isBuilt, precisionColor, type VisColor, type VisNode } from './msprobeGraphsApi'

// the compare .vis.db's own legend (tb_config.node_colors)
const colors: VisColor[] = [
  { color: '#FFFCF3', range: [0, 0.3], level: 'pass', description: null },
  { color: '#FFDC7F', range: [0.3, 0.6], level: 'warning', description: null },
  { color: '#FF704D', range: [0.6, 1], level: 'error', description: null },
  { color: '#C7C7C7', range: [], level: 'unmatched node', description: null },
]
const node = (precision_index: number | null, matched = true): VisNode => ({ name: 'n', parent: null, type: 1, order: 0, precision_index, overflow_level: null, matched })

describe('precisionColor', () => {
  it('maps a precision index into the file legend, 1 included in the last range', () => {
    expect(precisionColor(colors, node(0))).toBe('#FFFCF3')
    expect(precisionColor(colors, node(0.5))).toBe('#FFDC7F')
    expect(precisionColor(colors, node(1))).toBe('#FF704D')
    expect(precisionColor(colors, node(null))).toBeNull()
  })
  it('greys an unmatched node', () => {
    expect(precisionColor(colors, node(1, false))).toBe('#C7C7C7')
  })
})

describe('isBuilt', () => {
  it('tells a graph built from two dumps from a graph_visualize file', () => {
    expect(isBuilt('built:eyJ0YXJnZXQiOnt9fQ')).toBe(true)
    expect(isBuilt('./graph_vis/compare_statistics/compare_1.vis.db')).toBe(false)
  })
})
