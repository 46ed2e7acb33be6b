"""plugins layer (see ../shared/DESIGN.md)."""
