// msprobe page, dumps tab: the Watchpoints panel (issue 35). 简体中文.
export const msprobeWatchZh: Record<string, string> = {
  'msprobe.watchpoints': '监测点',
  'msprobe.watchpointsHint': '在 msprobe 写出的统计量上检查 MindInsight 的监测点条件（不读取张量）',
  'msprobe.watchCondition': '条件',
  'msprobe.watchScope': '范围',
  'msprobe.watchScopeDump': '所有步和卡',
  'msprobe.watchScopeRank': '{rank} 的所有步',
  'msprobe.watchScopeHere': '{rank} 的第 {step} 步',
  'msprobe.watchRun': '检查',
  'msprobe.watchOnly': '{p}：统计量只能判断 {v}',
  'msprobe.watchUnsupported': 'msprobe 统计量无法计算（需要张量数值）：{params}',
  'msprobe.watchHits': '命中 {n} 个',
  'msprobe.watchHits.one': '命中 {n} 个',
  'msprobe.watchSkipped': '未读取：{what}',
  'msprobe.watchIncomplete': 'dump.json 不完整（读到截断处）：{what}',
  'msprobe.watchNone': '无命中',
  'msprobe.watchNode': '节点',
  'msprobe.watchActual': '实际值',
  'msprobe.watchPrevious': '对比',
  'msprobe.watchPreviousAt': '第 {step} 步：norm {norm}',
  'msprobe.watchOpen': '在此步、此卡打开该节点',
  'msprobe.watchDef.nan_or_inf': 'Max、Min、Mean、Norm 中任一为 NaN 或 ±Inf（MindSpore 的 Max/Min 会跳过 NaN，因此四个都检查）。',
  'msprobe.watchDef.too_large': 'msprobe 的 Max / Min / Mean 严格大于阈值；任一已设置的参数满足即命中。',
  'msprobe.watchDef.too_small': 'msprobe 的 Max / Min / Mean 严格小于阈值；任一已设置的参数满足即命中。',
  'msprobe.watchDef.all_zero': '所有元素为 0：Max = Min = 0 且 Mean = Norm = 0。',
  'msprobe.watchDef.range': 'Max − Min 小于 / 大于阈值。',
  'msprobe.watchDef.not_changed':
    '近似判断：四个统计量均在该卡上一个转储步（同一节点、io、序号）的 atol + rtol·|上一步值| 之内。元素变化但四个统计量不变时也会命中。',
  'msprobe.watchDef.change_too_large':
    '基于范数：|Norm − 上一步 Norm| / (|上一步 Norm| + epsilon) 大于阈值，上一步为该卡上一个转储步。MindInsight 的比值需要张量数值；范数不变的变化无法发现。',
  'msprobe.watchDef.change_too_small':
    '基于范数：|Norm − 上一步 Norm| / (|上一步 Norm| + epsilon) 小于阈值，上一步为该卡上一个转储步。范数不变的变化会被视为无变化。',
}
