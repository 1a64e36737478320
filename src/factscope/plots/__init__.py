"""Self-contained inline SVG charts for the reports of every system (no scripts, nothing from the network)."""
