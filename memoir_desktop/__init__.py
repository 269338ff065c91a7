"""memoir desktop: a journal that remembers you."""

__version__ = "0.1.0"
