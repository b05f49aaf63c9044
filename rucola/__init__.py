"""RuCoLA corpus tool: command line and shared helpers."""

__version__ = "0.1.0"
