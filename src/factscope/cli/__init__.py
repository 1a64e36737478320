"""The `factscope` command line: one module per command, registered in main.py."""
