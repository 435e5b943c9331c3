"""firmware_bridge: wire protocol v1 between the table computer and the card readers.

Stands alone: stdlib and pyserial only, nothing from tablectl.
"""
