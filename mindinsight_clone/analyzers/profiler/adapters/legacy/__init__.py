"""MindSpore <= 2.2's profiler layout (PROF_*/device_*/ files and the flat *_{device_id}.txt/csv beside them)."""
