"""Browser displays: table display, dealer console, broadcast overlay."""
