// msprobe page, compare tab (issue 35). English.
export const msprobeCompareEn = {
  'msprobe.target': 'Target',
  'msprobe.bench': 'Bench',
  'msprobe.compareRun': 'Compare',
  'msprobe.compareFile': 'Open a compare_result file…',
  'msprobe.open': 'Open',
  'msprobe.unmatched': '{n} rows with no bench of the same name (pass, as msprobe counts them)',
  'msprobe.filterResult': 'Result',
  'msprobe.allResults': 'All results',
  'msprobe.firstDivergence': 'First divergence:',
  'msprobe.showNode': 'Show the node',
  'msprobe.noDivergence': 'Every row passes: no divergence.',
  'msprobe.serverCut': 'The server sent the first {shown} of {total} rows (the request limit); the counts above cover them all.',
  'msprobe.compareHint':
    'Pick a target and a bench (two dumps, or two steps or ranks of one) and compare them as msprobe compare does in statistics mode; or open a compare_result file msprobe wrote.',
}
