"""Labelled (premise, hypothesis) pair sets and how well a checker decides them."""
