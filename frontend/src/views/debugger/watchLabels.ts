// What the watchpoint panels (debugger and msprobe) call a condition, a parameter and a target: the locale's
// name when it has one, else the server's id.
import { t, type MessageKey } from '@/i18n'

function label(key: string, fallback: string): string {
  const s = t(key as MessageKey)
  return s === key ? fallback : s
}

export const conditionLabel = (id: string): string => label(`debugger.cond.${id}`, id)
export const paramLabel = (name: string): string => label(`debugger.param.${name}`, name)
export const targetLabel = (target: string): string => label(`debugger.target.${target}`, target)
/** a label of the locale's `key`, or `fallback` where it has none */
export const labelOr = label
