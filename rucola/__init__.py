"""RuCoLA corpus tool: command line and shared helpers."""

from rucola.determinism import pin_kernels

# Before anything imports numpy or scipy: one BLAS kernel and numpy's baseline loops on
# every machine, so floats come out the same bytes (see rucola/determinism.py).
pin_kernels()

__version__ = "0.1.0"
