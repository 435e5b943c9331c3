"""Hand histories: PHH import, replay and export."""
