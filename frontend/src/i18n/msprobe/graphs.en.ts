// msprobe page, graphs tab (issue 35). English.
export const msprobeGraphsEn = {
  'msprobe.noGraphs': 'No graph_visualize file found',
  'msprobe.noGraphsHint': 'The .vis.db (and older .vis) files msprobe graph_visualize writes, within --max-depth levels of the summary base dir, are listed here.',
  'msprobe.graphFile': 'Graph file',
  'msprobe.unreadable': 'unreadable',
  'msprobe.graphFilter': 'Show',
  'msprobe.filterAll': 'All nodes',
  'msprobe.filterErrors': 'Precision warnings and errors',
  'msprobe.filterOverflow': 'Overflow',
  'msprobe.filterUnmatched': 'Unmatched',
  'msprobe.noTrends': 'No data2db trend file found',
  'msprobe.noTrendsHint': 'The .trend.db files msprobe data2db writes, within --max-depth levels of the summary base dir, are listed here.',
  'msprobe.trendFile': 'Trend file',
  'msprobe.trendMetric': 'Metric',
  'msprobe.trendStat': 'Statistic',
  'msprobe.logColour': 'Log colour scale',
  'msprobe.trendEmpty': '{n} empty cells: not recorded, or NaN (data2db stores NaN as NULL)',
}
