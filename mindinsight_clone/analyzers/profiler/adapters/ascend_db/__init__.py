"""The Ascend database export (ascend_pytorch_profiler*.db / ascend_mindspore_profiler*.db) read as the same
tables as the text export."""
