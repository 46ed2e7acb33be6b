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
  return navigator.language?.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en-us'
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

/** For templates that need reactivity on the language in computed values. */
export const isZh = computed(() => lang.value === 'zh-cn')
