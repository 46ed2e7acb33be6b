// msprobe page, graphs tab (issue 35). 简体中文.
export const msprobeGraphsZh: Record<string, string> = {
  'msprobe.noGraphs': '未找到分级可视化文件',
  'msprobe.noGraphsHint': '训练日志根目录下 --max-depth 层以内由 msprobe graph_visualize 写出的 .vis.db（及旧版 .vis）文件会列在这里。',
  'msprobe.graphFile': '图文件',
  'msprobe.unreadable': '无法读取',
  'msprobe.graphFilter': '显示',
  'msprobe.filterAll': '全部节点',
  'msprobe.filterErrors': '精度告警与错误',
  'msprobe.filterOverflow': '溢出',
  'msprobe.filterUnmatched': '未匹配',
  'msprobe.noTrends': '未找到 data2db 趋势文件',
  'msprobe.noTrendsHint': '训练日志根目录下 --max-depth 层以内由 msprobe data2db 写出的 .trend.db 文件会列在这里。',
  'msprobe.trendFile': '趋势文件',
  'msprobe.trendMetric': '指标',
  'msprobe.trendStat': '统计量',
  'msprobe.logColour': '对数色阶',
  'msprobe.trendEmpty': '{n} 个空白格：未记录，或为 NaN（data2db 将 NaN 存为 NULL）',
}
