"""Table configuration: one TOML file per table, loaded into frozen, validated models.

Layout of a table config (every key is documented in README.md, "Configuration")::

    [table]            id, name
    [game]             variant, structure, preset, [game.stakes]; or a rotation instead of
                       variant: rotation = "horse" | [[game.games]], dealers_choice, stud_hands
    [game.run_it]      max_runs, structures, variants, odd_chip (run it twice: off if absent)
                       max_bomb_pot, double_board (in [game]: bomb pots, two boards)
    [[seats]]          number, name, stack
    [[sources]]        kind, url, name, antenna_map, profile, mode
    deck = "decks/demo-red.csv"
    other_decks = ["decks/demo-blue.csv"]    (the room's other decks: a second deck is an error)
    button = 1         (the button's seat at the first hand; 0: the first seat; stud: unused)
    [access]           roles = {user = "dealer" | "floor" | "display"}, max_command_age, keypad_user
    [access.rate_limit] staff_rate, staff_burst, user_rate, user_burst, stranger_rate, ...
    [mqtt]             url, credentials, cafile, certfile, keyfile
    [journal]          path
    [web]              host, port, credentials, users, broadcast_delay, ... (optional)
    [metrics]          host, port (the daemon's /metrics), web_port (the web server's)
    [odds]             enabled, precision (live odds on the secure feed)
    [tournament]       id, stale_after (the table follows that tournament's clock)

Relative paths are relative to the config file's folder. Precedence, highest first: a CLI flag
(passed as ``overrides``), a ``TABLECTL_*`` environment variable (``TABLECTL_MQTT__URL`` sets
``mqtt.url``: sections and keys joined by a double underscore), the file, the defaults.

Every problem is reported at once, each with its key path (``sources[0].url: not a serial
URL: 'COM3x'``), as one :class:`~tablectl.domain.errors.ConfigError`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Final, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tablectl.config_games import Hands, RunIt, rotation_problems
from tablectl.config_text import hostile_values, read_toml
from tablectl.config_tournament import TournamentSection, tournament_game_problem
from tablectl.config_urls import check_broker_url, check_camera_url, check_serial_url
from tablectl.config_words import schema_problems
from tablectl.domain.deck import Deck
from tablectl.domain.errors import ConfigError
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.domain.strictjson import StrictJsonError, display_name
from tablectl.domain.textfile import TextFileError, read_toml_file
from tablectl.game.rotation import DEFAULT_STUD_HANDS

ENV_PREFIX: Final = "TABLECTL_"
_ID_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
MAX_SEATS: Final = 10
_USER_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
"""A broker username as the command topic carries it (``tablectl.publish.topics.segment``)."""


def _shown_name(value: str, where: str) -> str:
    """A name a display shows whole (``strictjson.display_name``); "" stays "" (no name)."""
    if not value:
        return value
    try:
        return display_name(value, where=where)
    except StrictJsonError as exc:
        raise ValueError(exc.reason) from None


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True,
                              allow_inf_nan=False)


Chips = Annotated[int, Field(ge=0, strict=True)]


class TableSection(_Model):
    """Which table this is. ``id`` is used in MQTT topics, so it is restricted to
    letters, digits, ``-`` and ``_`` (at most 32)."""

    id: str
    name: str = ""

    @field_validator("id")
    @classmethod
    def _topic_safe(cls, value: str) -> str:
        if not _ID_RE.match(value):
            raise ValueError(f"not a table id: {value[:40]!r} (letters, digits, - and _, "
                             "at most 32)")
        return value

    @field_validator("name")
    @classmethod
    def _shown(cls, value: str) -> str:
        return _shown_name(value, "name")


class Stakes(_Model):
    """Forced bets and bet sizes, in the table's smallest chip unit (cents at a $1/$2 table).

    Flop games use blinds; fixed-limit games also ``small_bet``/``big_bet``; stud games use
    ``ante``, ``bring_in`` and ``small_bet``/``big_bet``. ``unit_name``/``units_per_currency``
    only label amounts on displays.
    """

    small_blind: Chips = 0
    big_blind: Chips = 0
    straddle: Chips = 0
    ante: Chips = 0
    bring_in: Chips = 0
    small_bet: Chips = 0
    big_bet: Chips = 0
    currency: str = "USD"
    units_per_currency: Annotated[int, Field(ge=1, strict=True)] = 100


class GameEntry(_Model):
    """One game of a ``[[game.games]]`` rotation (tablectl/config_games.py)."""

    variant: GameKind
    structure: BettingStructure = BettingStructure.FIXED_LIMIT
    hands: Hands | None = None
    stakes: Stakes | None = None


class GameSection(_Model):
    """What is dealt, under which house rules: one ``variant``, or a rotation of games
    (``rotation = "horse"`` or ``[[game.games]]``; :mod:`tablectl.config_games`)."""

    variant: GameKind | None = None
    structure: BettingStructure = BettingStructure.FIXED_LIMIT
    preset: RulesPreset = RulesPreset.CASINO
    stakes: Stakes
    rotation: str | None = None
    games: list[GameEntry] | None = None
    dealers_choice: Annotated[bool, Field(strict=True)] = False
    stud_hands: Hands = DEFAULT_STUD_HANDS
    run_it: RunIt | None = None
    max_bomb_pot: Chips = 0
    double_board: Annotated[bool, Field(strict=True)] = False

    @model_validator(mode="after")
    def _coherent(self) -> Self:
        problems = rotation_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self


class Seat(_Model):
    """A seat with a player in it at the start of the session."""

    number: Annotated[int, Field(ge=1, le=MAX_SEATS, strict=True)]
    name: str = ""
    stack: Chips
    player_id: str = ""
    """The player's id for the floor's statistics (docs/floor.md, "Definitions"): the same
    person under the same id at every table, whatever name a table shows; "" for none."""

    @field_validator("name")
    @classmethod
    def _shown(cls, value: str) -> str:
        return _shown_name(value, "name")

    @field_validator("player_id")
    @classmethod
    def _id_shown(cls, value: str) -> str:
        return _shown_name(value, "player_id")


class SourceKind(StrEnum):
    """Kinds of card and command sources."""

    RFID_SHOE = "rfid-shoe"
    RFID_TABLE = "rfid-table"
    KEYPAD = "keypad"
    CAMERA = "camera"
    MANUAL = "manual"


SERIAL_KINDS: Final = frozenset({SourceKind.RFID_SHOE, SourceKind.RFID_TABLE, SourceKind.KEYPAD})


class Source(_Model):
    """One card or command source."""

    kind: SourceKind
    url: str = ""
    name: str = ""
    antenna_map: Path | None = None
    profile: Path | None = None
    mode: str = "shoe"

    @model_validator(mode="after")
    def _url_fits_kind(self) -> Self:
        try:
            if self.kind in SERIAL_KINDS:
                check_serial_url(self.url)
            elif self.kind is SourceKind.CAMERA:
                check_camera_url(self.url)
        except ValueError as exc:
            raise ValueError(f"url: {exc}") from None
        if self.kind is SourceKind.CAMERA and self.mode not in ("shoe", "board"):
            raise ValueError(f"mode: {self.mode!r} is not shoe or board")
        if self.kind is SourceKind.CAMERA and self.profile is None:
            raise ValueError("profile: a camera source needs its enrolled deck profile "
                             "(tablectl camera enrol)")
        if self.kind is SourceKind.RFID_TABLE and self.antenna_map is None:
            raise ValueError("antenna_map: an rfid-table source needs its calibration map")
        return self

    @property
    def label(self) -> str:
        """The name if given, else the kind."""
        return self.name or self.kind.value


class MqttSection(_Model):
    """The broker and the controller's credentials.

    ``url`` is ``mqtt://host:port`` (plain, loopback only in production) or
    ``mqtts://host:port`` (TLS). ``credentials`` is a TOML file with ``username`` and
    ``password`` kept out of the table config (mode 0600).
    """

    url: str = "mqtt://127.0.0.1:1883"
    credentials: Path | None = None
    cafile: Path | None = None
    certfile: Path | None = None
    keyfile: Path | None = None

    @field_validator("url")
    @classmethod
    def _broker_url(cls, value: str) -> str:
        return check_broker_url(value)


class JournalSection(_Model):
    """Where the SQLite journal lives (a local disk; it is fsynced on every input)."""

    path: Path


class WebSection(_Model):
    """The browser display server (``tablectl web``): optional, only that command reads it.

    ``credentials`` is the web server's own broker user (a TOML file with ``username`` and
    ``password``, like ``mqtt.credentials``): it reads the public ``poker/`` topics for the
    table display. ``console_credentials`` is the broker user the dealer console's commands
    are sent under (default: ``credentials``). ``users`` is the TOML file of page logins
    (hashed passwords, roles ``dealer``, ``floor`` and ``broadcast``;
    ``tablectl web --hash-password`` makes a hash). The secure feed for the broadcast
    overlay is read over the mTLS listener
    ``secure_url`` with ``secure_certfile``/``secure_keyfile`` (CA: ``mqtt.cafile``); without
    ``secure_url`` the overlay is disabled. Hole cards reach overlay browsers only
    ``broadcast_delay`` seconds after the server received them. ``secure_cookie`` marks the
    session cookie ``Secure`` (sent over HTTPS only): true or false, or unset to mark it when
    the login came over HTTPS (a TLS proxy on the same machine that sends
    ``X-Forwarded-Proto: https``); set it true behind any HTTPS proxy.
    ``command_user`` is the broker user the console's commands are sent as on a broker
    without passwords (no ``credentials`` or ``console_credentials``): default
    ``console-{table.id}``, the same at every start, so it can be given a role in
    ``[access.roles]`` (:func:`web_command_user`).
    """

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535, strict=True)] = 8080
    credentials: Path | None = None
    console_credentials: Path | None = None
    command_user: str | None = None
    users: Path | None = None
    broadcast_delay: Annotated[float, Field(ge=0, le=3600)] = 30.0
    secure_url: str | None = None
    secure_certfile: Path | None = None
    secure_keyfile: Path | None = None
    four_colour: Annotated[bool, Field(strict=True)] = False
    secure_cookie: Annotated[bool | None, Field(strict=True)] = None

    @field_validator("secure_url")
    @classmethod
    def _secure_broker_url(cls, value: str | None) -> str | None:
        return None if value is None else check_broker_url(value)

    @field_validator("command_user")
    @classmethod
    def _broker_username(cls, value: str | None) -> str | None:
        if value is not None and not _USER_RE.match(value):
            raise ValueError(f"not a broker username: {value[:40]!r} (letters, digits, _ . -, "
                             "at most 64; it is a level of the command topic)")
        return value


Port = Annotated[int, Field(ge=0, le=65535, strict=True)]


class MetricsSection(_Model):
    """Prometheus metrics over HTTP (``GET /metrics``), off unless a port is set: ``port`` for
    ``tablectl run``, ``web_port`` for ``tablectl web``, both on ``host`` (keep it local: the
    figures are not secret, but nothing else should listen there; 0 picks a free port)."""

    host: str = "127.0.0.1"
    port: Port | None = None
    web_port: Port | None = None


class OddsSection(_Model):
    """Live odds on ``secure/v1/tables/{t}/odds`` (docs/odds.md): ``enabled`` (default off;
    a broadcast table turns it on); ``precision``, the Monte Carlo 95% half-width in
    percentage points (default 0.5)."""

    enabled: Annotated[bool, Field(strict=True)] = False
    precision: Annotated[float, Field(gt=0, le=10)] = 0.5


ROLES: Final = frozenset({"dealer", "floor", "display"})


Rate = Annotated[float, Field(gt=0, le=100_000, allow_inf_nan=False)]
Burst = Annotated[int, Field(ge=1, le=100_000, strict=True)]


class RateLimitSection(_Model):
    """Command rate limits (token buckets: ``*_rate`` commands a second on average,
    ``*_burst`` at once; docs/mqtt.md §8.4). ``staff``: each dealer and floor user (the
    keypad's user too); ``user``: each user of another role; ``stranger``: every user with no
    role here, together; ``refusals``: refused commands journaled one record each, all users
    together (past it they are counted, one record per user and code a minute);
    ``max_users``: users whose limits are tracked (least recently seen dropped)."""

    staff_rate: Rate = 500.0
    staff_burst: Burst = 1000
    user_rate: Rate = 5.0
    user_burst: Burst = 20
    stranger_rate: Rate = 5.0
    stranger_burst: Burst = 20
    refusals_rate: Rate = 20.0
    refusals_burst: Burst = 100
    max_users: Annotated[int, Field(ge=16, le=1_000_000, strict=True)] = 1024


class AccessSection(_Model):
    """Who may command the table: MQTT username -> role (``dealer``: play the hand;
    ``floor``: also adjust stacks, seat players, kill hands, clear errors; ``display``:
    nothing). Users not listed are refused. ``max_command_age`` (seconds) refuses commands
    whose time stamp is further off, before or after; ``keypad_user`` is the name the table's
    keypad commands under; ``[access.rate_limit]`` bounds how fast each user may send
    commands."""

    roles: dict[str, str] = Field(default_factory=dict)
    max_command_age: Annotated[float, Field(gt=0, le=3600)] = 10.0
    keypad_user: str = "keypad"
    rate_limit: RateLimitSection = RateLimitSection()

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, roles: dict[str, str]) -> dict[str, str]:
        bad = {user: role for user, role in roles.items() if role not in ROLES}
        if bad:
            raise ValueError(f"unknown role(s) {bad}: roles are {', '.join(sorted(ROLES))}")
        users = [user for user in roles if not _USER_RE.match(user)]
        if users:
            raise ValueError(f"not a broker username: {users[0][:40]!r} (letters, digits, "
                             "_ . -, at most 64; it is a level of the command topic)")
        return roles


class TableConfig(_Model):
    """A whole table config, validated and frozen."""

    table: TableSection
    game: GameSection
    seats: list[Seat] = Field(min_length=2, max_length=MAX_SEATS)
    sources: list[Source] = Field(min_length=1)
    deck: Path
    other_decks: list[Path] = Field(default_factory=list)
    button: Annotated[int, Field(ge=0, le=MAX_SEATS, strict=True)] = 0
    access: AccessSection = AccessSection()
    mqtt: MqttSection = MqttSection()
    journal: JournalSection
    web: WebSection | None = None
    metrics: MetricsSection = MetricsSection()
    odds: OddsSection = OddsSection()
    tournament: TournamentSection | None = None

    @model_validator(mode="after")
    def _tournament_game(self) -> Self:
        if self.tournament is not None:
            problem = tournament_game_problem(self.game.variant, self.game.rotation is not None
                                              or bool(self.game.games))
            if problem is not None:
                raise ValueError(f"tournament: {problem}")
        return self

    @field_validator("seats")
    @classmethod
    def _distinct_seats(cls, seats: list[Seat]) -> list[Seat]:
        numbers = [s.number for s in seats]
        dupes = sorted({n for n in numbers if numbers.count(n) > 1})
        if dupes:
            raise ValueError(f"seat numbers repeat: {dupes}")
        return seats

    def load_deck(self) -> Deck:
        """Load and validate the configured deck file."""
        return Deck.load(self.deck)

    def load_decks(self) -> dict[str, Deck]:
        """The deck in play and every other registered deck of the room, by deck id (a UID
        of another deck is then reported as a second deck on the table)."""
        decks = {d.deck_id: d for d in (Deck.load(p) for p in self.other_decks)}
        deck = self.load_deck()
        decks[deck.deck_id] = deck
        return decks


def _apply_env(data: dict[str, object], env: Mapping[str, str]) -> None:
    for name, value in env.items():
        if not name.startswith(ENV_PREFIX) or "__" not in name:
            continue
        keys = name[len(ENV_PREFIX):].lower().split("__")
        _set_dotted(data, keys, value)


def _set_dotted(data: dict[str, object], keys: list[str], value: object) -> None:
    node = data
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            return
        node = child
    node[keys[-1]] = value


def _resolve_paths(data: dict[str, object], base: Path) -> None:
    def fix(node: object, key: str) -> None:
        if not isinstance(node, dict):
            return
        if isinstance(node.get(key), str):
            path = Path(str(node[key])).expanduser()
            node[key] = str(path if path.is_absolute() else base / path)

    fix(data, "deck")
    others = data.get("other_decks")
    if isinstance(others, list):
        for i, item in enumerate(others):
            if isinstance(item, str):
                path = Path(item).expanduser()
                others[i] = str(path if path.is_absolute() else base / path)
    for section, keys in (("mqtt", ("credentials", "cafile", "certfile", "keyfile")),
                          ("journal", ("path",)),
                          ("web", ("credentials", "console_credentials", "users",
                                   "secure_certfile", "secure_keyfile"))):
        for key in keys:
            fix(data.get(section), key)
    sources = data.get("sources")
    if isinstance(sources, list):
        for src in sources:
            fix(src, "antenna_map")
            fix(src, "profile")


def parse_config(data: Mapping[str, object], *, source: str | None = None) -> TableConfig:
    """Validate already-parsed config data.

    Raises:
        ConfigError: every problem, each with its key path.
    """
    try:
        return TableConfig.model_validate(dict(data))
    except ValidationError as exc:
        raise ConfigError(schema_problems(exc, TableConfig), source=source) from None


def load_config(path: Path, *, overrides: Mapping[str, object] | None = None,
                env: Mapping[str, str] | None = None) -> TableConfig:
    """Read, merge and validate a table config file.

    Args:
        path: the TOML file.
        overrides: dotted keys from CLI flags (``{"mqtt.url": "mqtt://..."}``), highest precedence.
        env: the environment to read ``TABLECTL_*`` variables from (default ``os.environ``).

    Raises:
        ConfigError: the file cannot be read or parsed, or any value is invalid.
    """
    data, problems = config_data(path, overrides=overrides, env=env)
    if problems:
        raise ConfigError(problems, source=str(path))
    return parse_config(data, source=str(path))


def config_data(path: Path, *, overrides: Mapping[str, object] | None = None,
                env: Mapping[str, str] | None = None
                ) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """A config file's data as :func:`load_config` validates it (environment and overrides
    merged, paths resolved), and the values of the file itself no part of the table can hold
    (:func:`tablectl.config_text.hostile_values`), not yet validated.

    Raises:
        ConfigError: the file cannot be read, or is not a TOML document.
    """
    data = read_toml(path)
    problems = hostile_values(data)
    _apply_env(data, os.environ if env is None else env)
    for dotted, value in (overrides or {}).items():
        _set_dotted(data, dotted.split("."), value)
    _resolve_paths(data, path.parent)
    return data, problems


def check_config(path: Path) -> TableConfig:
    """Load a config and everything it names that can be checked offline (the deck file).

    Raises:
        ConfigError: every problem found, deck problems under the key ``deck``.
    """
    config = load_config(path)
    try:
        config.load_decks()
    except ConfigError as exc:
        raise ConfigError(deck_problems(exc), source=str(path)) from exc
    return config


def deck_problems(exc: ConfigError) -> list[tuple[str, str]]:
    """A deck file's problems as problems of the config naming it (key ``deck (FILE)``)."""
    return [(f"deck ({exc.source})" if exc.source else "deck", f"{p}: {m}" if p else m)
            for p, m in exc.problems]


def web_command_user(config: TableConfig) -> str:
    """The broker user the dealer console's commands go out as (``tablectl web``): the
    username of ``[web] console_credentials``, else of ``[web] credentials`` (commands then
    share the display connection), else ``[web] command_user``, else ``console-{table.id}``.
    Never random: it is the name ``[access.roles]`` must give a role.

    Raises:
        ConfigError: no ``[web]`` section; a credentials file that cannot be read; a
            ``command_user`` that is not the credentials' username (a broker with passwords
            pins each user to its own command topics).
    """
    web = config.web
    if web is None:
        raise ConfigError([("web", "the config has no [web] section")])
    key = "web.console_credentials" if web.console_credentials is not None else "web.credentials"
    named, _ = read_credentials(web.console_credentials or web.credentials)
    if named is not None:
        if web.command_user is not None and web.command_user != named:
            raise ConfigError([("web.command_user", (
                f"{web.command_user!r} is not the username of {key} ({named!r}): the broker "
                "lets a user send commands only under its own name; remove command_user or "
                "make them the same"))])
        return named
    return web.command_user or f"console-{config.table.id}"


def read_credentials(path: Path | None) -> tuple[str | None, str | None]:
    """``(username, password)`` from a credentials TOML file, or ``(None, None)``.

    Raises:
        ConfigError: unreadable, or without a string ``username``.
    """
    if path is None:
        return None, None
    try:
        data = read_toml_file(path)
    except TextFileError as exc:
        raise ConfigError([("", exc.said("credentials"))], source=str(path)) from None
    user, password = data.get("username"), data.get("password")
    if not isinstance(user, str) or not (password is None or isinstance(password, str)):
        raise ConfigError([("username", "credentials need a username (and a password)")],
                          source=str(path))
    return user, password
