"""The version of factscope, which the layers below the package root name in manifests, reports and pages."""

__version__ = "0.1.0"
