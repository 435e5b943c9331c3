"""Child for the LWT test: ``python -m tests.publish.lwt_child HOST PORT TABLE EPOCH``.

Connects with a birth/will, prints ``online`` once the birth is acknowledged, then waits to be
killed.
"""

from __future__ import annotations

import asyncio
import sys

from tablectl.publish import StatusPayload, encode
from tablectl.publish import topics as tp
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import Availability, MqttSettings


async def main() -> None:
    host, port, table, epoch = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

    def status(state: str) -> bytes:
        return encode(StatusPayload(table=table, state=state,
                                    version="test", epoch=epoch))

    avail = Availability(tp.status(table), status("online"), status("offline"))
    async with MqttPublisher(MqttSettings(host=host, port=port, client_id=f"ctl-{table}"),
                             availability=avail):
        print("online", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
