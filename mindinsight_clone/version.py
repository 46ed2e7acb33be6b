"""The package version (its own module so that code inside the package never imports the package root)."""

__version__ = "0.1.0"
