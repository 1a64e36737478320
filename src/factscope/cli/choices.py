"""Choice sets that only the command line has; every other option's choices are the library's Literals."""

from __future__ import annotations

from typing import Literal

RetrieveMode = Literal["none", "local", "wikidata"]
"""Where each KaLMA question's graph comes from: none (the gold graph), the local graph, or Wikidata."""
