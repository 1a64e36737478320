"""Claim extractors: claim-triplets, atomic facts and sentences from a response, offline or with an LLM."""
