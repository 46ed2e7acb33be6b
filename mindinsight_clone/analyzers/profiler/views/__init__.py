"""The profiler's views: overview, operators, steps, timeline, memory, communication, cluster, compare, advice.
They read tables through `rank_tables` and never look at a rank's format."""
