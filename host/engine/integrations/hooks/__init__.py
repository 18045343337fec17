"""Hooks: commands the person (or a trusted project) configures around a turn (docs/decisions.md,
"Hooks")."""
