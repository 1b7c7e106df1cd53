"""Constants shared by the Google tests."""

API_KEY = "emulator-secret-key-0123456789"
FAST_RETRY = {"retry_initial_delay": 0.001, "retry_max_delay": 0.005}
"""Keeps backoff waits tiny in tests (retry counts are read from the request log)."""
