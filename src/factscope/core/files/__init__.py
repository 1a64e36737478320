"""Files: reading the user's inputs (JSONL, JSON, tables) with located errors, and writing results files with their manifest, lock and checks."""
