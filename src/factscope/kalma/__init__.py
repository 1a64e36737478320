"""KaLMA: answers that cite knowledge-graph triples, their generation, scoring and evolutionary questions."""
