"""RefChecker: claim-level hallucination checking of responses against references, agreement with humans, reports."""
