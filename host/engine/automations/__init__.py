"""Automations: prompts that run on a schedule, when files change, or on demand, each run a new
session in its own worktree, its result in the inbox (docs/decisions/automations.md)."""
