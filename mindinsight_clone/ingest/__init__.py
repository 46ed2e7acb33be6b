"""ingest layer (see ../shared/DESIGN.md)."""
