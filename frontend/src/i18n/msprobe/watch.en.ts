// msprobe page, dumps tab: the Watchpoints panel (issue 35). English.
export const msprobeWatchEn = {
  'msprobe.watchpoints': 'Watchpoints',
  'msprobe.watchpointsHint': "MindInsight's watchpoint conditions, checked on the statistics msprobe wrote (no tensor is read)",
  'msprobe.watchCondition': 'Condition',
  'msprobe.watchScope': 'Where',
  'msprobe.watchScopeDump': 'Every step and rank',
  'msprobe.watchScopeRank': 'Every step of {rank}',
  'msprobe.watchScopeHere': 'Step {step} of {rank}',
  'msprobe.watchRun': 'Check',
  'msprobe.watchOnly': '{p}: only {v} can be derived from the statistics',
  'msprobe.watchUnsupported': 'Not computable from msprobe statistics (needs the tensor values): {params}',
  'msprobe.watchHits': '{n} hits',
  'msprobe.watchHits.one': '{n} hit',
  'msprobe.watchSkipped': 'not read: {what}',
  'msprobe.watchIncomplete': 'cut dump.json (read up to the cut): {what}',
  'msprobe.watchNone': 'No hit',
  'msprobe.watchNode': 'Node',
  'msprobe.watchActual': 'Actual',
  'msprobe.watchPrevious': 'Compared with',
  'msprobe.watchPreviousAt': 'step {step}: norm {norm}',
  'msprobe.watchOpen': 'Open this node at this step and rank',
  'msprobe.watchDef.nan_or_inf': 'Any of Max, Min, Mean, Norm is NaN or ±Inf (MindSpore skips NaN in Max/Min: all four are looked at).',
  'msprobe.watchDef.too_large': "msprobe's Max / Min / Mean strictly above the threshold; any parameter set triggers.",
  'msprobe.watchDef.too_small': "msprobe's Max / Min / Mean strictly below the threshold; any parameter set triggers.",
  'msprobe.watchDef.all_zero': 'Every element 0: Max = Min = 0 and Mean = Norm = 0.',
  'msprobe.watchDef.range': 'Max − Min below / above the threshold.',
  'msprobe.watchDef.not_changed':
    "Approximation: all four statistics within atol + rtol·|previous| of the rank's previous dumped step (same node, io, index). Elements that moved while keeping the four figures also hit.",
  'msprobe.watchDef.change_too_large':
    "On the norm: |Norm − previous Norm| / (|previous Norm| + epsilon) above the threshold, previous = the rank's previous dumped step. MindInsight's ratio needs the values; a change that keeps the norm is not seen.",
  'msprobe.watchDef.change_too_small':
    "On the norm: |Norm − previous Norm| / (|previous Norm| + epsilon) below the threshold, previous = the rank's previous dumped step. A change that keeps the norm looks like none.",
}
