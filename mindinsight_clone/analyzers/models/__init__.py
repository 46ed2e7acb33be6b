"""Model files users export (MindIR, checkpoints) or MindSpore saves (IR text, .dot, anf_ir .pb): their graphs,
parameters and text for the models/* routes (docs/debugger.md). The readers are formats in `ingest/`."""
