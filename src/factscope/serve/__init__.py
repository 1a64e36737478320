"""`factscope serve`: the HTTP API, the jobs store and the web pages."""
