"""What a run shows: progress on a terminal, figures as tables, results in a notebook."""
