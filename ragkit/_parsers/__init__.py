"""The output parsers beyond the main four, one module each; import them from :mod:`ragkit.parsers`.

Example:
    >>> from ragkit.parsers import EnumOutputParser
    >>> EnumOutputParser.__module__
    'ragkit._parsers.simple'
"""
