"""Tournaments: the structure as data, one clock for the room, the field, balancing.

Layers (import-linter checks them, pyproject.toml): :mod:`.command` (the CLI group) over
:mod:`.service` (the thin I/O shell: store, publish) over :mod:`.pg` (PostgreSQL) over
:mod:`.store` (the seam and its in-memory twin) over the sans-IO core: :mod:`.balance`,
:mod:`.field`, :mod:`.clock`, :mod:`.structure` and :mod:`.errors`. docs/tournament.md is
the tournament director's guide.
"""
