// A small i18n layer: two dictionaries and a reactive language. The choice is kept in
// localStorage under MindInsight's key `milang` ('en-us' | 'zh-cn').
import { ref } from 'vue'
import { en, type MessageKey } from './en'
import { zh } from './zh'

export type Lang = 'en-us' | 'zh-cn'
export type { MessageKey }

function initialLang(): Lang {
  try {
    const saved = localStorage.getItem('milang')
    if (saved === 'zh-cn' || saved === 'en-us') return saved
  } catch {
    /* storage disabled */
  }
  return typeof navigator !== 'undefined' && navigator.language?.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en-us'
}

export const lang = ref<Lang>(initialLang())

export function setLang(value: Lang): void {
  lang.value = value
  document.documentElement.lang = value === 'zh-cn' ? 'zh-CN' : 'en'
  try {
    localStorage.setItem('milang', value)
  } catch {
    /* ignore */
  }
}

export function t(key: MessageKey, params?: Record<string, string | number>): string {
  const table = lang.value === 'zh-cn' ? zh : en
  let text: string = table[key] ?? en[key] ?? key
  if (params) {
    for (const [k, v] of Object.entries(params)) text = text.split(`{${k}}`).join(String(v))
  }
  return text
}

/**
 * `t` for a count `n`: English takes the singular `<key>.one` when n is 1 ("1 entry", "2 entries"); Chinese has
 * one form (its `.one` strings equal the plural ones). `{n}` is filled with n in the locale's digits unless
 * `params` names it.
 */
export function tn(key: MessageKey, n: number, params?: Record<string, string | number>): string {
  const one = `${key}.one`
  const useOne = n === 1 && lang.value === 'en-us' && one in en
  return t((useOne ? one : key) as MessageKey, { n: n.toLocaleString('en-US'), ...params })
}

const DETAIL = '{detail}'

/**
 * The specific part (`{detail}`) of a server message `msg` written from the English pattern `template`
 * (errors.en.ts), '' when the server sent the bare prefix (e.g. "Train job is not exist."), null when the message
 * does not follow the pattern.
 */
export function errorDetail(template: string, msg: string): string | null {
  const text = msg.split(/\s+/).join(' ').trim()
  const at = template.indexOf(DETAIL)
  if (at < 0) return text === template.trim() ? '' : null
  const head = template.slice(0, at).trim()
  const tail = template.slice(at + DETAIL.length).trim()
  if (text.startsWith(head) && text.endsWith(tail) && head.length + tail.length <= text.length) {
    return text.slice(head.length, text.length - tail.length).trim()
  }
  // the prefix alone, when the pattern goes on after it ("Train job is not exist." of "... Detail: {detail}")
  if (!tail && /[.!?]$/.test(text) && head.startsWith(text)) return ''
  return null
}

/**
 * A server error (`error_code`, `error_msg`) in the UI language: in English the server's text itself; in
 * Chinese the code's message of the locale with the server's detail (file, parameter, node) kept as sent. A code
 * without a translation, or a message that does not follow its code's pattern, stays the server's text.
 */
export function serverMessage(code: string, msg: string): string {
  if (lang.value !== 'zh-cn' || !code) return msg
  const key = `error.${code.toUpperCase()}` as MessageKey
  const pattern = en[key]
  const local = zh[key]
  if (pattern === undefined || local === undefined) return msg
  const found = errorDetail(pattern, msg)
  if (found === null) return msg
  const detail = found.replace(/^Detail:\s*/, '') // MindInsight's own label of the detail, said by the colon here
  if (detail) return local.split(DETAIL).join(detail)
  // no detail: drop the placeholder and the colon before it
  return local.split(DETAIL).join('').replace(/[\s：:，,]+$/, '')
}
