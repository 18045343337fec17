"""Each session's permission policy: the four modes, scoped "Allow always" grants, and what a call
may leave of the sandbox (docs/decisions.md, "Sandbox and the four modes")."""
