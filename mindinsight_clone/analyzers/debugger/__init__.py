"""The offline debugger over MindSpore dumps (docs/debugger.md).

Modules: `dumps` (a dump root's folders, listed lazily), `naming` (file names -> graph nodes, the `-op<N>` pairing),
`stats` and `stats_cache` (statistics over finite values, kept in the workspace), `tensors` (an iteration's tensor
table), `values` (windows, histograms, comparisons), `conditions` and `watchpoints` (MindInsight's watchpoint
conditions as pure numpy functions, and the check over a dump), `service` (the facade the routes call).
"""
