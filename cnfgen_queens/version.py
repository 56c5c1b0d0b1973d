"""The package's version, in a module of its own: the layers below read it here, not from the package root
(which re-exports the Python API, the top layer, for type checkers)."""

__version__ = "0.2.0"
