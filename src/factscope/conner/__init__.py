"""CONNER: six knowledge-quality metrics of generated knowledge, knowledge and demonstration selection."""
