"""``tablectl web`` on the production broker configuration (ACL, passwords, mTLS; the
security engineer's test site): the display user reads the public view, the console's own user
sends commands, the overlay reads the secure feed with the ``holecards`` certificate only."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port
from tests.security.conftest import Site, make_site
from tests.web.conftest import users_toml
from tests.web.fake_table import HOLE, FakeTable
from tests.web.test_cli import CONFIG, spawn, wait_http
from tests.web.test_console import strings_in
from tests.web.test_http import Browserless


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    base = Path(tempfile.mkdtemp(prefix="tablectl-web-broker-"))
    base.chmod(0o755)
    try:
        site = make_site(base)
        yield site
        site.broker.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def read_views(url: str, opener: urllib.request.OpenerDirector, want: Any,
               limit: float = 15) -> dict[str, Any]:
    """Read an SSE stream until ``want(view)`` holds."""
    with opener.open(url, timeout=limit) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if line.startswith("data: "):
                view = json.loads(line[6:])
                if want(view):
                    return dict(view)
    raise AssertionError("stream ended")


async def test_web_server_under_the_production_acl_and_mtls(tmp_path: Path, site: Site) -> None:
    port = free_port()
    (tmp_path / "users.toml").write_text(users_toml())
    (tmp_path / "web.toml").write_text(
        f'username = "web-01"\npassword = "{site.passwords["web-01"]}"\n')
    (tmp_path / "console.toml").write_text(
        f'username = "webdealer-t01"\npassword = "{site.passwords["webdealer-t01"]}"\n')
    text = CONFIG.format(broker=site.ports["mqtt"], port=port)
    text = text.replace("[web]\n", f'[web]\nbroadcast_delay = 1.0\n'
                        f'secure_url = "mqtts://{site.lan}:{site.ports["mtls"]}"\n'
                        f'secure_certfile = "{site.root}/clients/holecards.crt"\n'
                        f'secure_keyfile = "{site.root}/clients/holecards.key"\n')
    text = text.replace("[journal]", f'cafile = "{site.ca}"\n\n[journal]')
    config = tmp_path / "t01.toml"
    config.write_text(text)
    table = FakeTable(site.ports["mqtt"], password=site.passwords["controller-t01"])
    proc = spawn(config)
    base = f"http://127.0.0.1:{port}"
    try:
        await asyncio.to_thread(wait_http, base, proc)
        dealer = Browserless(base)
        info = await dealer.login("dealer1")
        camera = Browserless(base)
        await camera.login("camera")
        status, reply = await dealer.post("/api/cmd/start_hand", b'{"args": {}}',
                                          **{"X-CSRF-Token": info["csrf"]})
        assert status == 200 and reply["ok"] is True, reply
        assert table.commands == [("start_hand", {})]  # sent as webdealer-t01, ACL passed

        hole = {c for cards in HOLE.values() for c in cards}
        # the daemon sends a seat's cards as each is dealt: wait for the second ones
        want = {str(s): cards for s, cards in HOLE.items()}
        overlay = await asyncio.to_thread(read_views, base + "/events/overlay",
                                          camera.opener, lambda v: v["holecards"] == want)
        assert overlay["holecards"] == want
        public = await asyncio.to_thread(
            read_views, base + "/events/public", dealer.opener,
            lambda v: (v["snapshot"] or {}).get("phase") == "betting")
        assert public["snapshot"]["hand"]["number"] == 1
        assert not strings_in(public) & hole
    finally:
        proc.terminate()
        _, err = await asyncio.to_thread(proc.communicate, None, 15)
        table.close()
    assert proc.returncode == 0, err.decode()
    assert "a broker feed stopped" not in err.decode(), err.decode()
