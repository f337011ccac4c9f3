"""onnxfix's version, in a module of its own: the cache, the reports and the command line read
it without importing the package's public face (onnxfix/__init__.py imports the Python API)."""

__version__ = "0.1.0"
