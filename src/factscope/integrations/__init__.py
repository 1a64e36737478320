"""factscope inside other tools: ``factscope.integrations.inspect_ai`` gives inspect_ai scorers (extra ``inspect``).

Like the command line and the server, an integration sits on top of the package and calls its public API.
"""
