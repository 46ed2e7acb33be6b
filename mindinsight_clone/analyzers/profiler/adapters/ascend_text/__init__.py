"""The Ascend text export: kernel_details, op_statistic, step_trace_time, communication and memory CSV/JSON."""
