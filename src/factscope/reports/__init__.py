"""Reports of any results file: which system wrote it, and that system's page with its plots."""
