"""`python -m factscope` runs the command line."""

from factscope.cli.main import main

main()
