"""MindInsight 2.3.1's profiler pages and answer shapes (the old layout's minddata, flops, info, timeline and
proposer answers) and the page list a profile gets (`profile_views`)."""
