"""factscope: check what language models write against knowledge."""

__version__ = "0.1.0"
