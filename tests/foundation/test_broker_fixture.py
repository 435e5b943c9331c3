"""The private-broker fixture really runs a mosquitto that carries messages."""

from __future__ import annotations

import threading

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests.conftest import Broker


def test_private_broker_carries_a_retained_message(mosquitto: Broker) -> None:
    got = threading.Event()
    seen: list[bytes] = []

    def on_message(_c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        seen.append(msg.payload)
        got.set()

    pub = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    pub.connect(mosquitto.host, mosquitto.port)
    pub.loop_start()
    pub.publish("t/x", b"hello", qos=1, retain=True).wait_for_publish(5)
    sub = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    sub.on_message = on_message
    sub.connect(mosquitto.host, mosquitto.port)
    sub.subscribe("t/#")
    sub.loop_start()
    try:
        assert got.wait(5)
        assert seen == [b"hello"]
    finally:
        for c in (pub, sub):
            c.disconnect()
            c.loop_stop()
