"""tablectl: the controller of a physical poker table.

Layers, from the bottom (see docs/architecture.md): domain -> game -> journal -> controller ->
(sources | publish | web | history) -> app -> cli.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tablectl")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"
