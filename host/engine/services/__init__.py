"""The engine's services, one per concern (docs/architecture.md, "The engine"): each a class
with a narrow public interface, built completely by `Engine.open()` from the parts it needs.
`host/api` and `desktop/` call `engine.<service>.<method>(...)`; the helpers in
`host/engine/services/core.py` are shared by the services only."""
