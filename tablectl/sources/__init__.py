"""Card sources: the CardSource seam and its RFID, camera and manual implementations."""
