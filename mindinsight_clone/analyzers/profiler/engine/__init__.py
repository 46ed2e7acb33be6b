"""What every profiler table is read and queried with, whatever wrote it: the CSV reader and its problem report,
the numpy column tables and their one query engine (filter, sort, page), the Chrome-trace engine, the workspace
table store and the per-file parse cache. Knows no format and no view."""
