"""The model library: the shipped catalogue, installed GGUF models and their downloads
(docs/decisions.md, "Offline agent")."""
