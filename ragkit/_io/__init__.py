"""The ground floor for files: helpers every room may use, importing nothing of ragkit but errors.

- :mod:`ragkit._io.atomic`: atomic writes (temp file in the same folder, fsync, rename).
- :mod:`ragkit._io.safe_read`: reading files a crash or a hostile user may have replaced
  (regular files only, a size bound, every JSON failure one clear error).
- :mod:`ragkit._io.json_stream`: writing a large JSON object piece by piece.
- :mod:`ragkit._io.sizes`: the default file size limit, ``100M``-style sizes.

A private package with nothing to export: import its modules directly.

Example:
    >>> from ragkit._io.sizes import parse_size
    >>> parse_size("1KiB")
    1024
"""
