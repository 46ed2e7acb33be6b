import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { children, isContainer, leafText, looksLikeLiteral, matchingPaths, parsePyLiteral, PyParseError, type PyNode, type TreeItem } from './pyLiteral'

/** Leaves of a tree as `path -> text` (dicts dotted, sequences by index). */
function leaves(node: PyNode, path = 'root', out: Record<string, string> = {}): Record<string, string> {
  const kids = children(node, path)
  if (!isContainer(node) || !kids.length) out[path] = leafText(node)
  for (const c of kids) leaves(c.node, c.path, out)
  return out
}

describe('parsePyLiteral', () => {
  it('reads what str(dict) prints', () => {
    // print(str({'a': 1, 'b': [1, 2.5, -3e-05], 'c': (1,), 'd': None, 'e': True, 'f': "it's", 'g': 'a\nb', 'h': {}, 'i': set(), 'j': {1, 2}, 2: 'int key'}))
    const text = `{'a': 1, 'b': [1, 2.5, -3e-05], 'c': (1,), 'd': None, 'e': True, 'f': "it's", 'g': 'a\\nb', 'h': {}, 'i': set(), 'j': {1, 2}, 2: 'int key'}`
    const tree = parsePyLiteral(text)
    expect(leaves(tree)).toEqual({
      'root.a': '1',
      'root.b[0]': '1',
      'root.b[1]': '2.5',
      'root.b[2]': '-3e-05',
      'root.c[0]': '1',
      'root.d': 'None',
      'root.e': 'True',
      'root.f': "it's",
      'root.g': 'a\nb',
      'root.h': '{0}',
      'root.i': '[0]',
      'root.j[0]': '1',
      'root.j[1]': '2',
      'root.2': 'int key',
    })
    expect(tree.kind).toBe('dict')
    const kinds = (tree as Extract<PyNode, { kind: 'dict' }>).entries.map((e) => e.value.kind)
    expect(kinds).toEqual(['num', 'list', 'tuple', 'none', 'bool', 'str', 'str', 'dict', 'set', 'set', 'str'])
  })

  it('decodes the escapes repr writes', () => {
    // repr('tab\there \\ back \x00 é 😀 \u2028') in Python
    const node = parsePyLiteral(`'tab\\there \\\\ back \\x00 é 😀 \\u2028'`)
    expect(node).toEqual({ kind: 'str', value: 'tab\there \\ back \x00 é 😀 \u2028' })
    expect(parsePyLiteral(`"say 'hi'"`)).toEqual({ kind: 'str', value: "say 'hi'" })
    expect(parsePyLiteral(`b'\\xff'`)).toEqual({ kind: 'str', value: '\xff' })
  })

  it('keeps numbers as written, including inf and nan that str(float) prints', () => {
    expect(leaves(parsePyLiteral('[1000000.0, 12345678901234567890, inf, -inf, nan, 0x1f, 1_000]'))).toEqual({
      'root[0]': '1000000.0',
      'root[1]': '12345678901234567890',
      'root[2]': 'inf',
      'root[3]': '-inf',
      'root[4]': 'nan',
      'root[5]': '0x1f',
      'root[6]': '1_000',
    })
  })

  it('refuses what is not a literal, with the position', () => {
    const bad = [
      "{'model': {'hidden_size': 4096, 'layers': ", // cut mid-dict
      "{'a': __import__('os').system('touch /tmp/x')}", // a call: never evaluated
      "{'cls': <class 'mindformers.Foo'>}",
      "{'a': 1} trailing",
      "{'a' 1}",
      "{'a': 'unterminated}",
      "{'a': 1e}",
    ]
    for (const text of bad) expect(() => parsePyLiteral(text), text).toThrow(PyParseError)
    try {
      parsePyLiteral("{'a': 1, 'b': foo}")
    } catch (e) {
      expect((e as PyParseError).pos).toBe(14)
      expect((e as Error).message).toContain("'foo' is not a literal")
    }
  })

  it('is bounded: deep nesting and huge values give a message, not a stack overflow', () => {
    expect(() => parsePyLiteral('['.repeat(100_000) + ']'.repeat(100_000))).toThrow(/nested more than/)
    expect(() => parsePyLiteral('[' + '0, '.repeat(200_000) + ']')).toThrow(/more than 100000 values/)
  })

  it('tells config-like texts from others', () => {
    expect(looksLikeLiteral("  {'a': 1}")).toBe(true)
    expect(looksLikeLiteral('[1, 2]')).toBe(true)
    expect(looksLikeLiteral('0.0003')).toBe(false)
    expect(looksLikeLiteral('# Title\n\ntext')).toBe(false)
  })
})

describe('matchingPaths', () => {
  const tree = parsePyLiteral("{'model_config': {'hidden_size': 4096, 'num_heads': 32}, 'arch': {'type': 'LlamaForCausalLM'}}")
  const items: TreeItem[] = [{ key: 'model', node: tree, path: 'model' }]
  it('keeps the hits, all below a key hit, and their ancestors', () => {
    expect(matchingPaths(items, '')).toBeNull()
    expect([...matchingPaths(items, 'HIDDEN')!].sort()).toEqual(['model', 'model.model_config', 'model.model_config.hidden_size'])
    expect([...matchingPaths(items, 'model_config')!].sort()).toEqual([
      'model',
      'model.model_config',
      'model.model_config.hidden_size',
      'model.model_config.num_heads',
    ])
    expect([...matchingPaths(items, 'llama')!].sort()).toEqual(['model', 'model.arch', 'model.arch.type'])
    expect(matchingPaths(items, 'nothing')!.size).toBe(0)
  })
})

// The oracle: CPython's own parser (ast.literal_eval) over the MindFormers config texts of the shared fixtures.
const EXPECTED = join(__dirname, '../../../../shared/fixtures/tensorboard/EXPECTED.json')
const python = spawnSync('python3', ['--version']).status === 0
describe.skipIf(!existsSync(EXPECTED) || !python)('parsePyLiteral on real MindFormers configs (../shared)', () => {
  it('gives the leaves ast.literal_eval gives', () => {
    const script = `
import ast, json, sys
data = json.load(open(sys.argv[1]))
out = {}
def walk(path, v):
    if isinstance(v, dict) and v:
        for k, x in v.items(): walk(f"{path}.{k}", x)
    elif isinstance(v, (list, tuple, set)) and v:
        for i, x in enumerate(v): walk(f"{path}[{i}]", x)
    elif isinstance(v, dict): out[path] = "{0}"
    elif isinstance(v, (list, tuple, set)): out[path] = "[0]"
    else: out[path] = str(v)
for tag, t in data["runs"]["mindformers_mixtral_8x7b/rank_0"]["text"].items():
    value = t["values"][-1]
    if value.lstrip().startswith(("{", "[")):
        walk(tag, ast.literal_eval(value))
print(json.dumps(out))`
    const res = spawnSync('python3', ['-c', script, EXPECTED], { encoding: 'utf8', maxBuffer: 64 << 20 })
    expect(res.status, res.stderr).toBe(0)
    const oracle = JSON.parse(res.stdout) as Record<string, string>
    const data = JSON.parse(readFileSync(EXPECTED, 'utf8'))
    const ours: Record<string, string> = {}
    let parsed = 0
    for (const [tag, t] of Object.entries(data.runs['mindformers_mixtral_8x7b/rank_0'].text as Record<string, { values: string[] }>)) {
      const value = t.values[t.values.length - 1]
      if (!looksLikeLiteral(value)) continue
      leaves(parsePyLiteral(value), tag, ours)
      parsed++
    }
    expect(parsed).toBeGreaterThan(10)
    expect(ours).toEqual(oracle)
  })
})
