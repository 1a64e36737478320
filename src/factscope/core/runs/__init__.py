"""The run loop every system shares, its typed result, lazy results and totals, and running it off the event loop."""
