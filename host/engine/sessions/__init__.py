"""Sessions as event logs: the events the engine writes, the journal that numbers, stores and
publishes them on the bus, and what is read back (history pages, the list, forks, titles, crash
repair, the inbox); a session's project folder and its instruction files."""
