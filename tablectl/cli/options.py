"""Option values the commands share, checked by argparse before anything runs: a bad one is a
usage line naming the option (exit 2), never a traceback from deeper down.

>>> broker_url("mqtt://127.0.0.1:1883")
'mqtt://127.0.0.1:1883'
>>> plain_broker_url("mqtts://h:8883")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: not a broker URL: 'mqtts://h:8883' (expected mqtt://host:port)
"""

from __future__ import annotations

from tablectl.config_urls import check_broker_url, checked


def broker_url(text: str) -> str:
    """``--broker``: ``mqtt://host:port`` or ``mqtts://host:port``
    (:func:`~tablectl.config_urls.check_broker_url`, as ``mqtt.url`` in a config)."""
    return checked(check_broker_url, text)


def plain_broker_url(text: str) -> str:
    """``--broker`` of a command that takes no TLS options (``demo``): ``mqtt://host:port``."""
    return checked(lambda t: check_broker_url(t, schemes=("mqtt",)), text)
