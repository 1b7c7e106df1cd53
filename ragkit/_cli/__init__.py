"""Helpers of the ``ragkit`` command (rendering, settings, eval and ask); see :mod:`ragkit.cli`."""
