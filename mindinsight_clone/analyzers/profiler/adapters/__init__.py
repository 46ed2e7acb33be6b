"""One reader package per format that writes profiler tables: `ascend_text` (the CSV/JSON export of
ASCEND_PROFILER_OUTPUT), `ascend_db` (its database export), `legacy` (MindSpore <= 2.2's PROF_* layout) and
`cluster_output` (msprof-analyze's cluster_analysis_output). Only `rank_tables` chooses between them; views above
never import a format's reader for a table the registry serves."""
