"""The engine's services, one per concern (docs/architecture.md, "The engine"): each a class
with a narrow public interface whose constructor names exactly the parts and callables it uses,
built completely by `Engine.open()` in dependency order. `host/api` and `desktop/` call
`engine.<service>.<method>(...)`."""
