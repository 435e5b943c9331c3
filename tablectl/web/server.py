"""The browser display server: a Starlette app on uvicorn, fed by MQTT through the link seam.

Routes (pages are static files written by hand; no build step, nothing from a CDN):

=========================  =========  =====================================================
path                       who        what
=========================  =========  =====================================================
``/``                      anyone     the table display
``/events/public``         anyone     Server-Sent Events: the public view (``PublicSync``)
``/login``                 anyone     login form; ``POST`` opens a session (cookie)
``/console``               dealer,    the dealer console (uses ``/events/public``)
                           floor
``/api/session``           logged in  ``{user, role, csrf, table, allowed, ...}``
``/api/cmd/{name}``        dealer,    ``POST {"args": {...}}`` with ``X-CSRF-Token``: one
                           floor      command of the login's role to the daemon; answers the
                                      daemon's reply (``recall``: with its readable lines)
``/overlay``               broadcast  the broadcast overlay (transparent background)
``/events/overlay``        broadcast  SSE: the secure view, released after the delay
``/logout``                logged in  ``POST`` with ``X-CSRF-Token``
=========================  =========  =====================================================

Every SSE message is one JSON view (``data: {...}``), the whole view each time, so a browser
that reconnects is up to date with its first message. The public stream is built only from
the public feed; the secure feed reaches only the overlay stream, and only through the
:class:`~tablectl.web.sync.OverlaySync` delay line, as do the floor's statistics of the seated
players (they come on the public feed, but only the overlay shows them).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import signal
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

from tablectl.clock import Clock, SystemClock
from tablectl.domain.errors import TablectlError
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.web.auth import (
    CONSOLE_ROLES,
    LOGIN_COMMANDS,
    LoginRole,
    LoginThrottle,
    Session,
    SessionStore,
    Users,
)
from tablectl.web.body import (
    MAX_BODY,
    MAX_FORM,
    BadRequest,
    command_args,
    login_form,
    read_body,
    token,
)
from tablectl.web.guard import GuardedH11
from tablectl.web.link import CommandChannel, Feed, LinkChange, LinkState, Message
from tablectl.web.recall import recall_text
from tablectl.web.sync import OverlaySync, PublicSync

_LOGGER = logging.getLogger(__name__)

STATIC_DIR: Final = Path(__file__).with_name("static")
COOKIE: Final = "tablectl_session"
COMMANDS: Final = frozenset({
    "start_hand", "action", "undo", "misdeal", "manual_card", "confirm_read", "reject_read",
    "kill_hand", "adjust_stack", "seat_player", "unseat_player", "next_hand", "recall",
    "clear_error", "choose_game", "run_it",
})
"""Commands the console may send (``replay`` is for audit clients, not the console)."""
HEARTBEAT: Final = 15.0
MAX_HEAD: Final = 16 * 1024
"""Bytes of a request line and headers (uvicorn answers 400 beyond; a cookie and a CSRF
token are well under 1 KB)."""

_SECURITY_HEADERS: Final = (
    ("content-security-policy",
     "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
     "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),  # "no-referrer" makes form POSTs send "Origin: null"
)


@dataclass(frozen=True, slots=True)
class WebSettings:
    """What the server needs besides its collaborators.

    Attributes:
        table: the table id (MQTT topics).
        table_name: shown in page titles.
        broadcast_delay: seconds hole cards are held back from the overlay.
        four_colour: draw a four-colour deck unless the page asks otherwise.
        command_expiry: seconds a console command waits for the daemon's reply.
        session_ttl: seconds a login lasts.
        secure_cookie: add ``Secure`` to the session cookie (True), never (False), or when
            the login came over HTTPS (None, the default: a TLS-terminating proxy on this
            machine says so with ``X-Forwarded-Proto: https``, which uvicorn trusts from
            127.0.0.1 only).
        command_user: the broker user console commands go out as (shown to the console).
        table_commands: the commands the table takes from ``command_user`` (its role's in
            ``[access.roles]``; empty when it has none), or None when not known: the
            console then offers every command of the login's role.
    """

    table: str
    table_name: str = ""
    broadcast_delay: float = 30.0
    four_colour: bool = False
    command_expiry: float = 10.0
    session_ttl: float = 12 * 3600
    secure_cookie: bool | None = None
    command_user: str = ""
    table_commands: frozenset[str] | None = None


class Hub:
    """The latest view of one stream, fanned out to every connected browser.

    A slow browser skips intermediate views (each view is complete), it never blocks the feed.
    """

    def __init__(self, initial: str) -> None:
        self.latest = initial
        self._queues: set[asyncio.Queue[str | None]] = set()
        self.closed = False

    @property
    def subscribers(self) -> int:
        """Browsers following this stream now."""
        return len(self._queues)

    def publish(self, text: str) -> None:
        """Make ``text`` the latest view and offer it to every subscriber."""
        self.latest = text
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(text)

    def close(self) -> None:
        """End every stream (server shutdown)."""
        self.closed = True
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(None)

    async def stream(self) -> AsyncIterator[str]:
        """SSE chunks: the latest view at once, then each new one, with heartbeats."""
        queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=1)
        self._queues.add(queue)
        try:
            yield "retry: 2000\n\n"
            yield f"data: {self.latest}\n\n"
            while not self.closed:
                try:
                    async with asyncio.timeout(HEARTBEAT):
                        text = await queue.get()
                except TimeoutError:
                    yield ": ping\n\n"
                    continue
                if text is None:
                    return
                yield f"data: {text}\n\n"
        finally:
            self._queues.discard(queue)


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal capture: it re-raises SIGTERM after a graceful shutdown,
    which kills the process before the MQTT clients close; :meth:`WebServer.run` stops on
    signals itself when asked to."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _SecurityHeaders:
    """Pure ASGI middleware adding the CSP and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: AsgiMessage) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in _SECURITY_HEADERS:
                    headers.setdefault(key, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def page_reply(raw: bytes) -> dict[str, object] | None:
    """The daemon's reply (``{"v", "id", "status": "ok"|"error", "error": {"code",
    "message"}, "data"}``, docs/mqtt.md) as the console page gets it: ``{"id", "ok",
    "result"}`` or ``{"id", "ok": false, "error": {"code", "reason"}}``; None when ``raw`` is
    not such a reply.

    >>> page_reply(b'{"v":1,"id":"a1","status":"ok","data":{"hand":{"number":2}}}')
    {'id': 'a1', 'ok': True, 'result': {'hand': {'number': 2}}}
    >>> page_reply(b'{"v":1,"id":"a2","status":"error","error":{"code":"out_of_turn",'
    ...            b'"message":"seat 3 is not to act"},"data":{}}')["error"]
    {'code': 'out_of_turn', 'reason': 'seat 3 is not to act'}
    >>> page_reply(b'{"id":"a3","ok":true}') is None
    True
    >>> page_reply(b'{"v":1,"id":"a4","status":"ok","data":{"x":NaN}}') is None
    True
    """
    try:
        reply = decode_object(raw, REPLY_LIMITS)
    except StrictJsonError:
        return None
    if reply.get("status") not in ("ok", "error"):
        return None
    data = reply.get("data")
    if reply["status"] == "ok":
        return {"id": reply.get("id"), "ok": True,
                "result": data if isinstance(data, dict) else {}}
    err = reply.get("error")
    err = err if isinstance(err, dict) else {}
    return {"id": reply.get("id"), "ok": False,
            "error": {"code": str(err.get("code") or "error"),
                      "reason": str(err.get("message") or "")}}


REPLY_LIMITS: Final = JsonLimits(max_bytes=4 * 1024 * 1024, max_depth=32,
                                 max_string=64 * 1024, max_items=8192)
"""A daemon's reply as the console takes it (a recall of many hands is large and deep: hands,
steps, their events, their seats)."""


def _dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class WebServer:
    """The display server: feeds in, pages and event streams out.

    Args:
        settings: table id, delay and the like.
        users: page logins (an empty :class:`Users` disables the console and overlay).
        public_feed: the table's ``poker/`` topics (state, events, status).
        secure_feed: the table's secure feed (hole cards, secure state), or None (no overlay).
        commands: where console commands go, or None (the console is read-only).
        clock: monotonic time for the delay and sessions (default: the system clock).
    """

    def __init__(self, settings: WebSettings, *, users: Users, public_feed: Feed,
                 secure_feed: Feed | None = None, commands: CommandChannel | None = None,
                 clock: Clock | None = None) -> None:
        self.settings = settings
        self._users = users
        self._public_feed = public_feed
        self._secure_feed = secure_feed
        self._commands = commands
        self._clock: Clock = clock or SystemClock()
        self.sessions = SessionStore(self._clock, ttl=settings.session_ttl)
        self.throttle = LoginThrottle(self._clock)
        self.public = PublicSync(settings.table, four_colour=settings.four_colour,
                                 title=settings.table_name)
        self.overlay = OverlaySync(settings.table, settings.broadcast_delay)
        self.public_hub = Hub(_dumps(self.public.view()))
        self.overlay_hub = Hub(_dumps(self.overlay.view()))
        self._overlay_wakeup = asyncio.Event()
        self._uvicorn: uvicorn.Server | None = None
        self.app = Starlette(
            routes=[
                Route("/", self._display_page),
                Route("/favicon.ico", self._no_icon),
                Route("/console", self._console_page),
                Route("/overlay", self._overlay_page),
                Route("/login", self._login_page, methods=["GET"]),
                Route("/login", self._login, methods=["POST"]),
                Route("/logout", self._logout, methods=["POST"]),
                Route("/api/session", self._session_info),
                Route("/api/cmd/{name}", self._command, methods=["POST"]),
                Route("/events/public", self._public_events),
                Route("/events/overlay", self._overlay_events),
                Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
            ],
            middleware=[Middleware(_SecurityHeaders)],
        )

    # --- running -------------------------------------------------------------------------

    async def run(self, *, host: str = "127.0.0.1", port: int = 8080,
                  sock: socket.socket | None = None, handle_signals: bool = False) -> None:
        """Serve until :meth:`stop`.

        Args:
            host: listen address (ignored when ``sock`` is given).
            port: listen port (ignored when ``sock`` is given).
            sock: an already bound socket to serve on (tests bind port 0).
            handle_signals: SIGINT and SIGTERM call :meth:`stop` (the ``tablectl web``
                process); the handlers are removed when this returns.
        """
        loop = asyncio.get_running_loop()
        signals: list[signal.Signals] = []
        if handle_signals:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, self.stop)
                signals.append(sig)
        try:
            await self._run(host, port, sock)
        finally:
            for sig in signals:
                loop.remove_signal_handler(sig)

    async def _run(self, host: str, port: int, sock: socket.socket | None) -> None:
        config = uvicorn.Config(self.app, host=host, port=port, log_config=None,
                                access_log=False, lifespan="off", ws="none",
                                timeout_graceful_shutdown=2, http=GuardedH11,
                                h11_max_incomplete_event_size=MAX_HEAD)
        server = _Uvicorn(config)
        self._uvicorn = server
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(self._consume_public())]
            if self._secure_feed is not None:
                tasks.append(tg.create_task(self._consume_secure(self._secure_feed)))
                tasks.append(tg.create_task(self._release_overlay()))
            try:
                await server.serve(sockets=[sock] if sock is not None else None)
            finally:
                self.public_hub.close()
                self.overlay_hub.close()
                for listening in server.servers:
                    # cancelled (run_web "until cancelled"): uvicorn's own shutdown did not
                    # run, so its listening socket would stay open
                    listening.close()
                for task in tasks:
                    task.cancel()

    def stop(self) -> None:
        """Ask :meth:`run` to finish: end the event streams, then stop uvicorn."""
        self.public_hub.close()
        self.overlay_hub.close()
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True

    async def _consume_public(self) -> None:
        try:
            async for item in self._public_feed:
                if isinstance(item, Message) and item.topic == self.overlay.stats_topic:
                    if self._secure_feed is not None:    # only the overlay shows them
                        self.overlay.receive(item, self._clock.monotonic())
                        self._overlay_wakeup.set()
                    continue
                if self.public.feed(item):
                    self.public_hub.publish(_dumps(self.public.view()))
        finally:
            if self.public.feed(LinkChange(LinkState.DOWN)):
                self.public_hub.publish(_dumps(self.public.view()))

    async def _consume_secure(self, feed: Feed) -> None:
        async for item in feed:
            if self.overlay.receive(item, self._clock.monotonic()):
                self.overlay_hub.publish(_dumps(self.overlay.view()))
            self._overlay_wakeup.set()

    async def _release_overlay(self) -> None:
        while True:
            await self._overlay_wakeup.wait()
            self._overlay_wakeup.clear()
            while (due := self.overlay.next_due()) is not None:
                now = self._clock.monotonic()
                if due > now:
                    await self._clock.sleep(due - now)
                    continue
                if self.overlay.release(now):
                    self.overlay_hub.publish(_dumps(self.overlay.view()))

    # --- sessions --------------------------------------------------------------------------

    def _session(self, request: Request) -> Session | None:
        return self.sessions.get(token(request.cookies.get(COOKIE)))

    def _page(self, request: Request, roles: frozenset[LoginRole], name: str) -> Response:
        session = self._session(request)
        if session is None:
            return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
        if session.role not in roles:
            wanted = " or ".join(sorted(r.value for r in roles))
            return PlainTextResponse(f"This page needs a {wanted} login "
                                     f"(you are {session.user}, {session.role.value}).",
                                     status_code=403)
        return FileResponse(STATIC_DIR / name, headers={"cache-control": "no-store"})

    def _secure_cookie(self, request: Request) -> bool:
        """Whether the session cookie is ``Secure`` (see :class:`WebSettings`)."""
        if self.settings.secure_cookie is not None:
            return self.settings.secure_cookie
        return request.url.scheme == "https"

    @staticmethod
    def _same_origin(request: Request) -> bool:
        origin = request.headers.get("origin")
        if origin is None:
            return True  # not a browser cross-origin POST (browsers send Origin on POST)
        return origin == f"{request.url.scheme}://{request.url.netloc}"

    def _csrf_ok(self, request: Request, session: Session) -> bool:
        sent = token(request.headers.get("x-csrf-token"))
        return (sent is not None and self._same_origin(request)
                and hmac.compare_digest(sent.encode("ascii"), session.csrf.encode("ascii")))

    # --- pages -----------------------------------------------------------------------------

    async def _display_page(self, request: Request) -> Response:
        return FileResponse(STATIC_DIR / "display.html")

    async def _no_icon(self, request: Request) -> Response:
        return Response(status_code=204)

    async def _console_page(self, request: Request) -> Response:
        return self._page(request, CONSOLE_ROLES, "console.html")

    async def _overlay_page(self, request: Request) -> Response:
        if self._secure_feed is None:
            # the page would stay blank for ever: say why instead
            return PlainTextResponse(
                "No broadcast overlay on this server: it has no secure feed. Set secure_url, "
                "secure_certfile and secure_keyfile in the table config's [web] section "
                "(docs/web.md) and restart tablectl web.", status_code=503)
        return self._page(request, frozenset({LoginRole.BROADCAST}), "overlay.html")

    async def _login_page(self, request: Request) -> Response:
        return FileResponse(STATIC_DIR / "login.html", headers={"cache-control": "no-store"})

    async def _login(self, request: Request) -> Response:
        if not self._same_origin(request):
            return PlainTextResponse("cross-site login refused", status_code=403)
        try:
            name, password, wanted = login_form(await read_body(request, MAX_FORM))
        except BadRequest as exc:
            return JSONResponse(exc.to_json(), status_code=exc.status)
        target = wanted if wanted in ("/console", "/overlay") else ""
        if self.throttle.blocked(name):
            _LOGGER.warning("page login for %r refused: too many failures", name)
            return RedirectResponse(f"/login?error=2&next={quote(target)}", status_code=303)
        user = await asyncio.to_thread(self._users.authenticate, name, password)
        if user is None:
            self.throttle.failed(name)
            _LOGGER.warning("failed page login for %r", name)
            return RedirectResponse(f"/login?error=1&next={quote(target)}", status_code=303)
        self.throttle.succeeded(name)
        session = self.sessions.create(user)
        _LOGGER.info("page login: %s (%s)", user.name, user.role.value)
        home = "/console" if user.role in CONSOLE_ROLES else "/overlay"
        response = RedirectResponse(wanted if wanted in ("/console", "/overlay") else home,
                                    status_code=303)
        response.set_cookie(COOKIE, session.token, max_age=int(self.settings.session_ttl),
                            path="/", httponly=True, samesite="strict",
                            secure=self._secure_cookie(request))
        return response

    async def _logout(self, request: Request) -> Response:
        session = self._session(request)
        if session is None:
            return JSONResponse({"ok": True})
        if not self._csrf_ok(request, session):
            return JSONResponse({"ok": False, "error": "csrf"}, status_code=403)
        self.sessions.drop(session.token)
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict",
                               secure=self._secure_cookie(request))
        return response

    async def _session_info(self, request: Request) -> Response:
        session = self._session(request)
        if session is None:
            return JSONResponse({"error": "not logged in"}, status_code=401)
        return JSONResponse({"user": session.user, "role": session.role.value,
                             "csrf": session.csrf, "table": self.settings.table,
                             "table_name": self.settings.table_name,
                             "commands": self._commands is not None,
                             "allowed": sorted(self.allowed(session.role)),
                             "command_user": self.settings.command_user},
                            headers={"cache-control": "no-store"})

    def allowed(self, role: LoginRole) -> frozenset[str]:
        """The commands a login of ``role`` may send through this server and the table would
        take from its broker user (what the console offers)."""
        if self._commands is None:
            return frozenset()
        mine = LOGIN_COMMANDS[role]
        table = self.settings.table_commands
        return mine if table is None else mine & table

    # --- commands --------------------------------------------------------------------------

    async def _command(self, request: Request) -> Response:
        session = self._session(request)
        if session is None:
            return JSONResponse({"ok": False, "error": {"code": "login", "reason":
                                 "not logged in"}}, status_code=401)
        if session.role not in CONSOLE_ROLES:
            return JSONResponse({"ok": False, "error": {"code": "forbidden", "reason":
                                 "commands need a dealer or floor login"}}, status_code=403)
        if not self._csrf_ok(request, session):
            return JSONResponse({"ok": False, "error": {"code": "csrf", "reason":
                                 "missing or wrong CSRF token"}}, status_code=403)
        name = request.path_params["name"]
        if name not in COMMANDS:
            return JSONResponse({"ok": False, "error": {"code": "unknown_command", "reason":
                                 f"no console command {name[:40]!r}"}}, status_code=404)
        if name not in LOGIN_COMMANDS[session.role]:
            return JSONResponse({"ok": False, "error": {"code": "forbidden", "reason":
                                 f"a {session.role.value} login may not {name}: it needs a "
                                 "floor login"}}, status_code=403)
        try:
            args = command_args(await read_body(request, MAX_BODY))
        except BadRequest as exc:
            _LOGGER.warning("console %s: %s refused: %s", session.user, name, exc,
                            extra={"table": self.settings.table})
            return JSONResponse(exc.to_json(), status_code=exc.status)
        cmd_id = secrets.token_hex(12)
        if self._commands is None:
            return JSONResponse({"id": cmd_id, "ok": False, "error": {
                "code": "unavailable", "reason": "this server has no command channel"}},
                status_code=503)
        payload = _dumps({"v": 1, "id": cmd_id, "args": args}).encode("utf-8")
        _LOGGER.info("console %s: %s %s (id %s)", session.user, name, _dumps(args), cmd_id,
                     extra={"table": self.settings.table})
        try:
            raw = await self._commands.request(name, payload,
                                               expiry=self.settings.command_expiry)
        except TimeoutError:
            return JSONResponse({"id": cmd_id, "ok": False, "error": {
                "code": "timeout", "reason": f"no reply from the table within "
                f"{self.settings.command_expiry:g} s"}}, status_code=504)
        except TablectlError as exc:
            _LOGGER.warning("console command %s not sent: %s", name, exc)
            return JSONResponse({"id": cmd_id, "ok": False, "error": {
                "code": "unavailable", "reason": str(exc)}}, status_code=502)
        reply = page_reply(raw)
        if reply is None:
            return JSONResponse({"id": cmd_id, "ok": False, "error": {
                "code": "bad_reply", "reason": "the table's reply was not understood"}},
                status_code=502)
        if name == "recall" and reply["ok"]:
            result = reply["result"]
            assert isinstance(result, dict)
            # the lines of `tablectl recall`, made from the daemon's (public) recall
            result["text"] = recall_text(result.get("hands"))
        return JSONResponse(reply)

    # --- event streams ---------------------------------------------------------------------

    @staticmethod
    def _sse(hub: Hub) -> Response:
        return StreamingResponse(hub.stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store",
                                          "x-accel-buffering": "no"})

    async def _public_events(self, request: Request) -> Response:
        return self._sse(self.public_hub)

    async def _overlay_events(self, request: Request) -> Response:
        session = self._session(request)
        if session is None or session.role is not LoginRole.BROADCAST:
            return PlainTextResponse("the overlay feed needs a broadcast login",
                                     status_code=403)
        return self._sse(self.overlay_hub)
