"""Training offline checkers (`factscope train-checker`); imports the checkers, nothing imports it."""
