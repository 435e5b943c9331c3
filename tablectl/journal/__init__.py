"""The append-only SQLite journal: inputs, outbox, epochs, recovery and recall."""
