"""Subagents: child sessions a parent's `task` calls start (docs/architecture.md, "Subagents")."""
