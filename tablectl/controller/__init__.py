"""The hand controller: binds reads and dealer commands to the rules engine."""
