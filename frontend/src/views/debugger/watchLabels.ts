// What the watchpoint panels (debugger and msprobe) call a condition, a parameter and a target: the locale's
// name when it has one, else the server's id.
import { t, type MessageKey } from '@/i18n'

/** the locale's text of `key`, or `fallback` where the locale has none */
export function labelOr(key: string, fallback: string): string {
  const s = t(key as MessageKey)
  return s === key ? fallback : s
}

export const conditionLabel = (id: string): string => labelOr(`debugger.cond.${id}`, id)
export const paramLabel = (name: string): string => labelOr(`debugger.param.${name}`, name)
export const targetLabel = (target: string): string => labelOr(`debugger.target.${target}`, target)
