"""Tasks: each composes extract -> check -> metrics for one seed system; the CLI and the Python API call them."""
