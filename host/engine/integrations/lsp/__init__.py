"""Language servers for the agent: errors after each edit and code navigation
(docs/decisions.md, "Language servers")."""
