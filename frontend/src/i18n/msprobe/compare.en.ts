// msprobe page, compare tab (issue 35). English.
export const msprobeCompareEn = {
  'msprobe.target': 'Target',
  'msprobe.bench': 'Bench',
  'msprobe.compareRun': 'Compare',
  'msprobe.compareFile': 'Open a compare_result file…',
  'msprobe.open': 'Open',
  'msprobe.unmatched': '{n} rows with no bench of the same name (pass, as msprobe counts them)',
  'msprobe.unmatchedMapped': '{n} rows the mapping matches to no bench row (pass, as msprobe counts them)',
  'msprobe.matching': 'Node matching',
  'msprobe.matchByName': 'By name',
  'msprobe.matchApiBuiltin': 'APIs: msprobe’s built-in table (-am)',
  'msprobe.matchApiYaml': 'APIs: a mapping yaml (-am)',
  'msprobe.matchCell': 'Cells: a mapping yaml (-cm)',
  'msprobe.matchLayer': 'Layers: a mapping yaml (-lm)',
  'msprobe.matchData': 'Data: a mapping yaml (-dm)',
  'msprobe.mappingPath': 'yaml path under the summary base dir',
  'msprobe.crossFrameworkHint':
    'The target and the bench come from different frameworks: their node names differ, so by name most rows have no bench. Pick a mapping as with msprobe compare -am / -cm / -lm.',
  'msprobe.filterResult': 'Result',
  'msprobe.allResults': 'All results',
  'msprobe.firstDivergence': 'First divergence:',
  'msprobe.showNode': 'Show the node',
  'msprobe.noDivergence': 'Every row passes: no divergence.',
  'msprobe.serverCut': 'The server sent the first {shown} of {total} rows (the request limit); the counts above cover them all.',
  'msprobe.compareHint':
    'Pick a target and a bench (two dumps, or two steps or ranks of one) and compare them as msprobe compare does in statistics mode; or open a compare_result file msprobe wrote.',
}
