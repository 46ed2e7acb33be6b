// msprobe page, graphs tab (issue 35). English.
export const msprobeGraphsEn = {
  'msprobe.noGraphs': 'No graph_visualize file found',
  'msprobe.noGraphsHint': 'The .vis.db files msprobe graph_visualize writes, within --max-depth levels of the summary base dir, are listed here.',
  'msprobe.graphFile': 'Graph file',
  'msprobe.unreadable': 'unreadable',
  'msprobe.graphFilter': 'Show',
  'msprobe.filterAll': 'All nodes',
  'msprobe.filterErrors': 'Precision warnings and errors',
  'msprobe.filterOverflow': 'Overflow',
  'msprobe.filterUnmatched': 'Unmatched',
  'msprobe.trendsLater': 'data2db .trend.db files are found and listed (GET msprobe/files); their layer × step view is not drawn yet.',
}
