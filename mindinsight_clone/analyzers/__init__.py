"""analyzers layer (see ../shared/DESIGN.md)."""
