"""Evidence retrieval: passages from a user corpus (BM25, dense, hybrid) and knowledge-graph look-ups."""
