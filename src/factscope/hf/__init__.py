"""Local Hugging Face models: NLI classifiers, bi- and cross-encoders, causal LMs, the packaged models."""
