"""Shared fixtures for the test suite."""

import os

# No test may reach a model hub: huggingface_hub stays offline (it reads this when imported).
os.environ["HF_HUB_OFFLINE"] = "1"
