import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '@/api/client'
import { en } from './en'
import { errorDetail, lang, serverMessage } from './index'
import { zh } from './zh'

const ERRORS_PY = join(__dirname, '../../../mindinsight_clone/errors.py')

/** Every error code errors.py can answer: `0x50540000 | module << 12 | value` of each class (module inherited
 * from the base class when the class sets none), plus the `values` of a class whose value is given when raised. */
function errorCodes(source: string): string[] {
  const code = (module: number, value: number) => (0x50540000 | (module << 12) | value).toString(16).toUpperCase().padStart(8, '0')
  const modules = new Map<string, number>([['MindInsightError', 0]])
  const codes = new Set<string>()
  const classes = source.split(/^class /m).slice(1)
  for (const block of classes) {
    const [, name, base] = /^(\w+)\((\w+)\):/.exec(block) ?? []
    if (!name) continue
    const body = block.slice(block.indexOf('\n')).split(/^\S/m)[0]
    const num = (s: string) => Number(s)
    let module = modules.get(base) ?? 0
    let value: number | null = null
    const both = /^\s{4}module, value(?:, http_status)? = (\w+), (\w+)/m.exec(body)
    const onlyModule = /^\s{4}module = (\w+)/m.exec(body)
    const onlyValue = /^\s{4}value(?:, http_status)? = (\w+)/m.exec(body)
    const values = /^\s{4}values = \(([^)]*)\)/m.exec(body)
    if (both) [module, value] = [num(both[1]), num(both[2])]
    if (onlyModule) module = num(onlyModule[1])
    if (onlyValue) value = num(onlyValue[1])
    modules.set(name, module)
    if (values) for (const v of values[1].split(',')) if (v.trim()) codes.add(code(module, num(v.trim())))
    if (value !== null && !values) codes.add(code(module, value))
  }
  return [...codes].sort()
}

afterEach(() => (lang.value = 'en-us'))

describe('server error messages', () => {
  const codes = errorCodes(readFileSync(ERRORS_PY, 'utf8'))

  it('reads the codes of errors.py', () => {
    expect(codes).toContain('50540002')
    expect(codes).toContain('50545005')
    expect(codes).toContain('50546084')
    expect(codes).toContain('50546188')
    expect(codes).toContain('5054B285')
    expect(codes.length).toBeGreaterThan(50)
  })

  it('has an English and a Chinese message for every error code of errors.py', () => {
    const key = (c: string) => `error.${c}`
    expect(codes.filter((c) => !(key(c) in en))).toEqual([])
    expect(codes.filter((c) => !(key(c) in zh))).toEqual([])
    // and no entry for a code the server does not have
    const listed = Object.keys(en).filter((k) => k.startsWith('error.')).map((k) => k.slice(6))
    expect(listed.filter((c) => !codes.includes(c))).toEqual([])
  })

  it('takes the detail out of the English messages', () => {
    expect(errorDetail('The file {detail} not found.', 'The file <communication.json of rank 0> not found.')).toBe(
      '<communication.json of rank 0>',
    )
    expect(errorDetail('Invalid parameter value. {detail}', "Invalid parameter value. 'across' should be steps.")).toBe(
      "'across' should be steps.",
    )
    expect(errorDetail('Invalid parameter value. {detail}', 'Invalid parameter value.')).toBe('')
    expect(errorDetail('Train job is not exist. Detail: {detail}', 'Train job is not exist.')).toBe('')
    expect(errorDetail('Train job is not exist. Detail: {detail}', 'Train job is not exist. Detail: ./run1')).toBe('./run1')
    expect(errorDetail('The dir {detail} not found.', 'The dir not found.')).toBe('')
    expect(errorDetail('System error. {detail}', 'System error or http error.')).toBeNull()
  })

  it('shows Chinese messages with the server detail in zh, the server text in en', () => {
    const msg = 'The file <communication.json of rank 0> not found.'
    expect(serverMessage('50546084', msg)).toBe(msg)
    lang.value = 'zh-cn'
    expect(serverMessage('50546084', msg)).toBe('未找到文件：<communication.json of rank 0>')
    expect(serverMessage('50545005', 'Train job is not exist. Detail: ./nope')).toBe('训练作业不存在：./nope')
    expect(serverMessage('50545005', 'Train job is not exist.')).toBe('训练作业不存在')
    expect(serverMessage('50545020', 'Data is not exist. Detail: this train job has no custom scalars layout.')).toBe(
      '数据不存在：this train job has no custom scalars layout.',
    )
    expect(serverMessage('50546084', msg.toLowerCase())).toBe(msg.toLowerCase()) // not the pattern: as sent
    expect(serverMessage('50549999', 'Some new error.')).toBe('Some new error.') // no translation: as sent
  })

  it('gives ApiError a message in the UI language, read when shown', () => {
    const err = new ApiError('http', "Param missing. 'train_id' is required.", 400, '50540003')
    expect(err.message).toBe("Param missing. 'train_id' is required.")
    lang.value = 'zh-cn'
    expect(err.message).toBe("缺少参数：'train_id' is required.")
    expect(err.serverText).toBe("Param missing. 'train_id' is required.")
    expect(new ApiError('network', 'Server unreachable').message).toBe('Server unreachable')
  })
})
