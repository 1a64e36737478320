"""The OpenAI-compatible LLM client, its settings, retry policy and response cache."""
