"""The package's version, in a module of its own: the engine and the cache key read it without
importing the package's face (tco/__init__.py imports the API, which imports the engine)."""

__version__ = "0.1.0"
