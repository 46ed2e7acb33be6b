// Words of the profiler page in the UI's language: what wrote a profile (the layout badge), the execution mode,
// and the overview's suggestions (the server's `code` + `args`; its English sentence is the fallback and tooltip).
import { t, type MessageKey } from '@/i18n'
import type { ProfilerDirInfo } from '@/api/profilerApi'
import { fmtUs } from './format'

/** The layout badge: the framework that wrote the profile (profile/dirs `framework`), not only the folder layout. */
export function layoutBadge(d: Pick<ProfilerDirInfo, 'layout' | 'framework'>): { text: string; title: string } {
  if (d.layout !== 'ms2') return { text: t('profiler.layoutLegacy'), title: t('profiler.layoutLegacyHint') }
  if (d.framework === 'pytorch') return { text: t('profiler.layoutPytorch'), title: t('profiler.layoutPytorchHint') }
  if (d.framework === 'mindspore') return { text: t('profiler.layoutMs2'), title: t('profiler.layoutMs2Hint') }
  return { text: t('profiler.layoutAscend'), title: t('profiler.layoutAscendHint') }
}

const MODES: Record<string, MessageKey> = { graph: 'profiler.modeGraph', pynative: 'profiler.modePynative' }
export function modeLabel(mode: string): string {
  return MODES[mode] ? t(MODES[mode]) : mode
}

export interface Hint {
  code: string
  message: string
  args?: Record<string, unknown>
}
const HINTS = ['dominant_op_type', 'first_step_slow', 'host_bound', 'no_op_data', 'few_steps'] as const
type HintCode = (typeof HINTS)[number]
function known(code: string): code is HintCode {
  return (HINTS as readonly string[]).includes(code)
}

/** A suggestion's title (its code, translated) and sentence in the UI's language; the server's sentence otherwise. */
export function hintText(h: Hint): { title: string; text: string } {
  if (!known(h.code)) {
    // an advice rule's finding (the Ascend overview's hints): its rule's title, the server's sentence
    const key = `advice.${h.code}.title` as MessageKey
    const title = t(key)
    return { title: title === key ? h.code : title, text: h.message }
  }
  const a = h.args ?? {}
  const params: Record<string, string | number> = {
    op_type: String(a.op_type ?? ''),
    percent: typeof a.percent === 'number' ? Number(a.percent.toFixed(1)) : String(a.percent ?? ''),
    first: typeof a.first_us === 'number' ? fmtUs(a.first_us) : '',
    median: typeof a.median_us === 'number' ? fmtUs(a.median_us) : '',
    steps: String(a.steps ?? ''),
  }
  return { title: t(`profiler.hint.${h.code}.title` as MessageKey), text: t(`profiler.hint.${h.code}` as MessageKey, params) }
}
