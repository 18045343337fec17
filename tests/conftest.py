"""Root fixtures: shared plugins live in tests/support/ (each suite keeps its own conftest)."""

import os

# Every host the tests open, in this process or in one they start, checks each value and frame it
# sends against the contract (host/fetch/handler.py; off in the product).
os.environ.setdefault("HARNESSDESK_DEV_VALIDATE", "1")
# ... and runs as on a machine without a sandbox (host/engine/sandbox/probe.py): a session in Auto
# asks like Ask, as the approval tests expect. The sandbox tests turn it on (tests/security/
# sandboxing.py `sandbox_on`).
os.environ.setdefault("HARNESSDESK_SANDBOX", "none")

pytest_plugins = ["tests.support.scripted_llm"]
