"""HarnessDesk host: the engine, the ApiProxy implementation and the fetch handler."""
