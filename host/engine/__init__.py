"""The engine: sessions, agents, tools and everything they use, one domain package each
(docs/architecture.md, "The engine's packages"); `engine.Engine` is the one door."""
