"""The terminal display: a live rich view of a table, fed by the MQTT API like any display."""
