"""Live odds: the equity of every live player, published on the secure feed and answered on
the command line (``tablectl equity``).

:mod:`tablectl.odds.position` is the sans-IO core (snapshot in, figures out),
:mod:`tablectl.odds.worker` runs it off the event loop (a child process, latest request wins),
:mod:`tablectl.odds.feed` publishes the figures, :mod:`tablectl.odds.command` is the CLI.
"""
