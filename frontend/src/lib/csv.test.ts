import { describe, expect, it } from 'vitest'
import { csvCell, csvRow } from './csv'
import { prepareLines, toCsv as scalarCsv } from '@/charts/scalarOption'
import { toCsv as lineageCsv, type Row } from '@/views/model-lineage/lineageTable'
import { rowsToCsv } from './tensorSlice'

// Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with = + - @ (or a tab / CR
// before one), so a tag or a lineage value written into a summary file could run a formula on the reader's
// machine. Text cells get a leading quote; numbers stay numbers.
const HOSTILE = ['=HYPERLINK("http://x","y")', '+1+cmd|\' /C calc\'!A0', '-2+3+cmd|\' /C calc\'!A0', '@SUM(1+1)*cmd|\' /C calc\'!A0', '\t=1+1', '\r=1+1']

describe('csvCell', () => {
  it('neutralises text cells that a spreadsheet would run as a formula', () => {
    for (const s of HOSTILE) {
      const cell = csvCell(s)
      expect(cell.replace(/^"/, '').startsWith("'"), JSON.stringify(cell)).toBe(true)
    }
    expect(csvCell('=1+1')).toBe("'=1+1")
    expect(csvCell('=A1,B1')).toBe(`"'=A1,B1"`) // quoted as well: it holds a comma
    expect(csvCell('\r=1')).toBe(`"'\r=1"`) // a bare CR is a line break to many readers: quoted
  })

  it('keeps numbers, numeric text and ordinary text as they are', () => {
    expect([-0.5, 0, 3, 1e-7, -1e21, NaN, -Infinity].map(csvCell)).toEqual(['-0.5', '0', '3', '1e-7', '-1e+21', 'NaN', '-Infinity'])
    expect(['-0.5', '+3', '-1.5e-3', '-INF', 'NAN', '-inf'].map(csvCell)).toEqual(['-0.5', '+3', '-1.5e-3', '-INF', 'NAN', '-inf'])
    expect(['loss/train', 'a "b"', '', 'x=1'].map(csvCell)).toEqual(['loss/train', '"a ""b"""', '', 'x=1'])
    expect([null, undefined].map(csvCell)).toEqual(['', ''])
    expect(csvRow(['a', -1, '-a'])).toBe("a,-1,'-a")
  })
})

describe('browser CSV exports', () => {
  it('scalar chart CSV: a hostile series name is neutralised, negative values stay numbers', () => {
    const pts = [{ step: 1, value: -0.5, wall_time: 100 }]
    const prepared = prepareLines([{ key: 'a', name: '=cmd|"/C calc"!A0', color: '#000', points: pts }], 'step', 0)
    expect(scalarCsv(prepared).split('\n')[1]).toBe(`"'=cmd|""/C calc""!A0",1,100,-0.5,-0.5`)
  })

  it('lineage CSV: hostile labels and values are neutralised, numbers kept', () => {
    const row: Row = { id: './a', index: 0, tag: 0, remark: '@SUM(1)', values: { lr: -0.001, note: '+cmd' } }
    const cols = [
      { key: 'summary_dir', label: 'summary_dir' },
      { key: 'lr', label: 'lr' },
      { key: 'note', label: '-note' },
      { key: 'remark', label: 'remark' },
    ]
    expect(lineageCsv([row], cols)).toBe("summary_dir,lr,'-note,remark\n./a,-0.001,'+cmd,'@SUM(1)\n")
  })

  it('tensor CSV: numbers and the NaN/Inf markers stay as they are, text is neutralised', () => {
    expect(rowsToCsv([[-1, '-INF', '=1+1']])).toBe(",0,1,2\n0,-1,-INF,'=1+1\n")
  })
})
