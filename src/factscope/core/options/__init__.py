"""Options declared once: a field's metadata (help, range, flag), its rules, and validation on construction."""
