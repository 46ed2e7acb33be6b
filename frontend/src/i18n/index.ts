// A small i18n layer: two dictionaries and a reactive language. The choice is kept in
// localStorage under MindInsight's key `milang` ('en-us' | 'zh-cn').
import { computed, ref } from 'vue'
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

/** For templates that need reactivity on the language in computed values. */
export const isZh = computed(() => lang.value === 'zh-cn')
