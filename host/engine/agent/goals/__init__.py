"""Goals: a long-running objective the host keeps a session's agent working toward
(docs/architecture.md, "Goals"). `domain` is the pure ledger (CAS, phases, strict replay),
`service` the engine's goal methods and projection, `driver` the continuation rounds, `command`
the `/goal` slash command."""
