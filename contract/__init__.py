"""HarnessDesk's wire contract: pydantic v2 models, the one authority every carrier derives from.

This package imports nothing of ours (enforced by tests/test_layering.py).
"""

__version__ = "0.1.0"
