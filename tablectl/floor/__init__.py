"""The card room floor: every table's public events, exactly once, into one history.

``fold`` is the sans-IO core (a stream of events per ``(table, epoch)`` into rows), ``rules``
the house jackpot rules, ``store`` the storage seam and its in-memory twin, ``pg`` the
PostgreSQL store, ``service`` the MQTT shell (``tablectl floor run``). docs/floor.md.
"""
