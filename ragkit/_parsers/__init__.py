"""The output parsers beyond the main four, one module each; import them from :mod:`ragkit.parsers`."""
