"""Driving paho from the asyncio loop, for :class:`~tablectl.publish.mqtt.MqttPublisher`: the
socket, reads and writes, and paho's callbacks turned into plain calls of the client's
``_handle_*`` methods (the connection's life, publishing and subscribing are the client's).

There is no paho thread (docs/mqtt.md §5). paho is driven from the running loop through its
external-loop API: the socket is a reader of the loop (``loop_read``, repeated
while a TLS socket holds decrypted bytes the selector cannot see), a writer only while paho
has bytes it could not write, and ``loop_misc`` runs once a second.
Every call into paho that queues a packet is followed in the same turn of the loop by
``loop_write``, so a PUBLISH is on the socket when :meth:`MqttPublisher.publish` starts waiting
for its PUBACK; paho's callbacks run on the loop and act directly. The one exception is paho's
blocking ``reconnect()`` (DNS, TCP connect, TLS and websocket handshakes, each bounded by at
most 5 s): it runs in a worker thread of the loop's default executor, while nothing on the
loop touches the client (publish and subscribe need a CONNACK, no reader, writer or
``loop_misc`` is active); the socket callbacks it triggers there only set TCP_NODELAY.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tablectl.publish.mqtt_wire import set_nodelay, unread

if TYPE_CHECKING:
    from paho.mqtt.client import SocketLike

_P = ParamSpec("_P")
_T = TypeVar("_T")


class PahoLoop:
    """paho's external-loop API on the running asyncio loop (see the module docstring)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        # the socket as registered with the loop (fd numbers: a closed socket has none)
        self._reader_fd: int | None = None
        self._writer_fd: int | None = None
        self._lost = asyncio.Event()           # set when the current socket closes
        self._in_call = False                  # inside a call into paho made by this class

    def _drive_loop(self) -> None:
        """Drive paho from the running loop (its thread is the one callbacks act on)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    def _drive(self, client: mqtt.Client) -> None:
        """Take over ``client``'s socket callbacks."""
        client.on_socket_open = self._on_socket_open
        client.on_socket_close = self._on_socket_close
        client.on_socket_register_write = self._on_socket_register_write
        client.on_socket_unregister_write = self._on_socket_unregister_write
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_subscribe = self._on_subscribe

    def _watch_readable(self, client: mqtt.Client, sock: SocketLike) -> None:
        """Read ``client``'s new socket whenever it is readable."""
        assert self._loop is not None
        self._reader_fd = sock.fileno()
        self._loop.add_reader(self._reader_fd, self._on_readable, client)

    def _quiet(self, fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """Call into paho; a write it wants is left to :meth:`_flush` (no writer churn)."""
        self._in_call = True
        try:
            return fn(*args, **kwargs)
        finally:
            self._in_call = False

    def _flush(self, client: mqtt.Client) -> None:
        """Write what paho queued, now; watch for writability only if the socket is full."""
        if client.want_write():
            self._quiet(client.loop_write)    # errors close the socket (on_socket_close)
        if client.want_write() and (sock := client.socket()) is not None:
            self._watch_writable(client, sock)

    def _call(self, client: mqtt.Client, fn: Callable[_P, object], *args: _P.args,
              **kwargs: _P.kwargs) -> None:
        self._quiet(fn, *args, **kwargs)
        self._flush(client)

    def _on_readable(self, client: mqtt.Client) -> None:
        self._call(client, self._read, client)

    def _on_writable(self, client: mqtt.Client) -> None:
        self._call(client, client.loop_write)

    @staticmethod
    def _read(client: mqtt.Client) -> None:
        rc = client.loop_read()
        # TLS: a record is decrypted whole; bytes of it that paho did not take yet stay in
        # the SSL object, where the selector cannot see them
        while (rc == MQTTErrorCode.MQTT_ERR_SUCCESS and (sock := client.socket()) is not None
               and unread(sock) > 0):
            rc = client.loop_read()

    def _watch_writable(self, client: mqtt.Client, sock: SocketLike) -> None:
        if self._writer_fd is None and self._loop is not None:
            fd = sock.fileno()
            self._loop.add_writer(fd, self._on_writable, client)
            self._writer_fd = fd

    def _unwatch_writable(self) -> None:
        if self._writer_fd is not None and self._loop is not None:
            self._loop.remove_writer(self._writer_fd)
            self._writer_fd = None

    def _unwatch(self) -> None:
        loop = self._loop
        if loop is None:
            return
        self._unwatch_writable()
        if self._reader_fd is not None:
            loop.remove_reader(self._reader_fd)
            self._reader_fd = None

    # -- paho's socket callbacks ------------------------------------------------------------
    # On the loop (inside loop_read / loop_write / loop_misc / the calls above), except those
    # that reconnect() triggers in the worker thread: those touch nothing of the loop's.

    def _on_loop(self) -> bool:
        return threading.get_ident() == self._loop_thread

    def _on_socket_open(self, _client: mqtt.Client, _userdata: object,
                        sock: SocketLike) -> None:
        set_nodelay(sock)                    # worker thread, before CONNECT is written

    def _on_socket_close(self, _client: mqtt.Client, _userdata: object,
                         _sock: SocketLike) -> None:
        if self._on_loop():
            self._unwatch()
            self._lost.set()

    def _on_socket_register_write(self, client: mqtt.Client, _userdata: object,
                                  sock: SocketLike) -> None:
        if self._on_loop() and not self._in_call:   # else _flush / _open see to it
            self._watch_writable(client, sock)

    def _on_socket_unregister_write(self, _client: mqtt.Client, _userdata: object,
                                    _sock: SocketLike) -> None:
        if self._on_loop():
            self._unwatch_writable()

    # -- paho's protocol callbacks, as plain values for the client ----------------------------

    def _on_connect(self, _client: mqtt.Client, _userdata: object, flags: mqtt.ConnectFlags,
                    reason_code: ReasonCode, _props: Properties | None) -> None:
        self._handle_connect(not reason_code.is_failure, flags.session_present,
                             str(reason_code))

    def _on_disconnect(self, _client: mqtt.Client, _userdata: object,
                       _flags: mqtt.DisconnectFlags, reason_code: ReasonCode,
                       _props: Properties | None) -> None:
        self._handle_disconnect(str(reason_code))

    def _on_publish(self, _client: mqtt.Client, _userdata: object, mid: int,
                    reason_code: ReasonCode, _props: Properties | None) -> None:
        self._handle_puback(mid, reason_code.value, reason_code.is_failure, str(reason_code))

    def _on_subscribe(self, _client: mqtt.Client, _userdata: object, mid: int,
                      reason_codes: list[ReasonCode], _props: Properties | None) -> None:
        self._handle_suback(mid, [rc.value for rc in reason_codes])

    def _handle_connect(self, ok: bool, session_present: bool, reason: str) -> None:
        """A CONNACK: success or not, the session flag, the reason code in words."""
        raise NotImplementedError

    def _handle_disconnect(self, reason: str) -> None:
        """The connection ended (a DISCONNECT, or the socket closed)."""
        raise NotImplementedError

    def _handle_puback(self, mid: int, code: int, failed: bool, reason: str) -> None:
        """A PUBACK for packet ``mid``."""
        raise NotImplementedError

    def _handle_suback(self, mid: int, codes: list[int]) -> None:
        """A SUBACK for packet ``mid`` with a reason code per filter."""
        raise NotImplementedError
