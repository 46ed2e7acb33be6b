"""proto layer (see ../shared/DESIGN.md)."""
