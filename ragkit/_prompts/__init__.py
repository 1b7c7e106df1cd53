"""Prompt templates beyond the basic ones, one module each; import them from :mod:`ragkit.prompts`."""
