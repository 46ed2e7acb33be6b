"""summary layer (see ../shared/DESIGN.md)."""
