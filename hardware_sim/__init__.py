"""hardware_sim: simulated shoe, table antennas, keypad, camera and dealer.

Speaks the real wire format through firmware_bridge in the device role. Production code
never imports this package.
"""
