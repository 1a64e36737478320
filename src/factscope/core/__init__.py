"""Shared records, errors, input reading, the run loop, text splitting and prompts: the layer every other builds on."""
