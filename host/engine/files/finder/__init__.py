"""`@` in the composer: a gitignore-aware fuzzy finder over a session's folder, and what it
attaches to a prompt (docs/architecture.md, "The @ finder")."""
