"""``python -m firmware_bridge``: decode, encode and monitor protocol v1 traffic.

* ``decode`` — hex on stdin (whitespace ignored), or raw bytes with ``--raw`` -> one JSON
  object per frame (``seq``, ``flags``, ``message``) and one per dropped chunk (``dropped``
  with its reason, ``raw`` hex).
* ``encode`` — JSON messages on stdin, one per line (as ``decode`` prints them in
  ``message``, with optional ``seq`` and ``retx``) -> one hex wire frame per line.
* ``monitor PORT`` — open a device (path, stable name or ``socket://``) as the host and print
  its decoded traffic live, one JSON object per event, until Ctrl-C.
* ``conformance PORT`` — the protocol's conformance suite against the reader on PORT
  (:mod:`firmware_bridge.conformance`): one PASS / FAIL / SKIP line per check, each naming its
  clause of docs/protocol.md; prompts a person for a tag (or runs ``--script`` lines).

Exit codes: 0 success, 1 the work failed (a port that never came up is not a failure:
monitor keeps retrying), 2 bad usage or bad input (one line per problem on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceEvent,
    DeviceRebooted,
    Disconnected,
    Incompatible,
    Malformed,
)
from firmware_bridge.clock import SystemClock
from firmware_bridge.conformance import WAIT, Prompt, Verdict, run_conformance, summary
from firmware_bridge.conformance_host import CheckFailed
from firmware_bridge.errors import BridgeError, FrameError
from firmware_bridge.frames import Dropped, Frame, FrameDecoder, FrameFlags, encode_frame
from firmware_bridge.link import LINE_PROFILES, Link, open_serial_link
from firmware_bridge.messages import (
    decode_message,
    encode_message,
    message_from_json,
    message_to_json,
)


def _frame_json(item: Frame | Dropped) -> dict[str, object]:
    if isinstance(item, Dropped):
        return {"dropped": str(item.reason), "raw": item.raw.hex(" ")}
    flags = [f.name for f in FrameFlags if f in item.flags and f.name]
    out: dict[str, object] = {"seq": item.seq, "flags": flags}
    try:
        out["message"] = message_to_json(decode_message(item))
    except FrameError as exc:
        out["type"] = item.type
        out["error"] = str(exc)
        out["payload"] = item.payload.hex(" ")
    return out


def _decode(args: argparse.Namespace) -> int:
    if args.raw:
        data = sys.stdin.buffer.read()
    else:
        text = "".join(sys.stdin.read().split())
        try:
            data = bytes.fromhex(text)
        except ValueError as exc:
            print(f"decode: stdin is not hex: {exc}", file=sys.stderr)
            return 2
    decoder = FrameDecoder()
    for item in decoder.feed(data):
        print(json.dumps(_frame_json(item)))
    if decoder.buffered:
        print(json.dumps({"incomplete": decoder.buffered}))
    return 0


def _encode(args: argparse.Namespace) -> int:
    lines: list[str] = []
    problems: list[str] = []
    for lineno, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise ValueError("expected a JSON object")
            message = message_from_json(obj)
            seq = obj.get("seq", 0)
            if not isinstance(seq, int):
                raise ValueError("seq must be an integer")
            frame = encode_message(message, seq, retx=bool(obj.get("retx", False)))
        except RecursionError:
            problems.append(f"encode: line {lineno}: nested too deep")
            continue
        except (ValueError, TypeError, KeyError) as exc:
            problems.append(f"encode: line {lineno}: {str(exc)[:200]}")
            continue
        lines.append(encode_frame(frame).hex(" "))
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    for out in lines:
        print(out)
    return 0


def _event_json(event: DeviceEvent) -> dict[str, object]:
    match event:
        case Delivered(message=message, seq=seq, at=at):
            return {"event": "message", "seq": seq, "at": round(at, 6),
                    "message": message_to_json(message)}
        case Connected(peer=peer, new_boot=new_boot, snapshot_req_id=req):
            return {"event": "connected", "new_boot": new_boot, "snapshot_req_id": req,
                    "device": message_to_json(peer)}
        case DeviceRebooted(previous_boot_id=prev, boot_id=boot):
            return {"event": "rebooted", "previous_boot_id": prev, "boot_id": boot}
        case Disconnected(reason=reason):
            return {"event": "disconnected", "reason": reason}
        case Malformed(type=ftype, seq=seq, error=error):
            return {"event": "malformed", "type": ftype, "seq": seq, "error": error}
        case Incompatible(peer_major=major) as seen:
            return {"event": "incompatible", "proto_major": major, "reason": seen.reason}
    raise AssertionError(event)


async def _monitor_loop(args: argparse.Namespace) -> int:
    async def opener(address: str) -> Link:
        return await open_serial_link(address, profile=args.profile, baudrate=args.baud)

    client = DeviceClient(args.port, opener=opener)
    try:
        async with client:
            async for event in client.events():
                print(json.dumps(_event_json(event)), flush=True)
    except BridgeError as exc:
        print(f"monitor: {exc}", file=sys.stderr)
        return 1
    return 0


def _monitor(args: argparse.Namespace) -> int:
    # connection attempts and losses go to stderr, so stdout stays one JSON object per line
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(message)s")
    try:
        return asyncio.run(_monitor_loop(args))
    except KeyboardInterrupt:
        return 0


def _verdict_line(v: Verdict) -> str:
    mark = {True: "PASS", False: "FAIL", None: "SKIP"}[v.passed]
    return f"{mark}  {v.clause}: {v.check}" + (f" -- {v.detail}" if v.detail else "")


async def _conformance_loop(args: argparse.Namespace) -> int:
    script = list(args.script.read_text().splitlines()) if args.script else None

    async def prompter(prompt: Prompt) -> None:
        if script is None:
            print(f">>> {prompt.text}, then press Enter", file=sys.stderr, flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            return
        if not script:
            raise CheckFailed(f"the script has no line left for: {prompt.text}")
        env = dict(os.environ, CONFORMANCE_ACTION=prompt.action,
                   CONFORMANCE_ANTENNA=str(prompt.antenna))
        proc = await asyncio.create_subprocess_shell(script.pop(0), env=env)
        if await proc.wait() != 0:
            raise CheckFailed(f"the script's command for {prompt.action!r} failed")

    try:
        link = await open_serial_link(args.port, profile=args.profile, baudrate=args.baud)
    except BridgeError as exc:
        print(f"conformance: {exc}", file=sys.stderr)
        return 1
    verdicts = await run_conformance(link, clock=SystemClock(),
                                     prompter=None if args.no_prompts else prompter,
                                     antenna=args.antenna, wait=args.wait)
    for v in verdicts:
        print(_verdict_line(v), flush=True)
    passed, failed, skipped = summary(verdicts)
    print(f"conformance: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


def _conformance(args: argparse.Namespace) -> int:
    if args.script is not None and not args.script.is_file():
        print(f"conformance: no script file {args.script}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_conformance_loop(args))
    except KeyboardInterrupt:
        return 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge",
                                     description="protocol v1 tools")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("decode", help="wire bytes on stdin -> JSON per frame or drop")
    p.add_argument("--raw", action="store_true", help="stdin is raw bytes, not hex")
    p.set_defaults(handler=_decode)
    p = sub.add_parser("encode", help="JSON messages on stdin -> hex wire frames")
    p.set_defaults(handler=_encode)
    p = sub.add_parser("monitor", help="live decoded traffic of a device port")
    p.add_argument("port", help="path, /dev/serial/by-id/... name, or socket://host:port")
    p.add_argument("--profile", choices=sorted(LINE_PROFILES), default="plain",
                   help="DTR/RTS levels applied before opening (default: plain)")
    p.add_argument("--baud", type=int, default=115200)
    p.set_defaults(handler=_monitor)
    p = sub.add_parser("conformance", help="the protocol's conformance suite against a reader",
                       description="Run docs/protocol.md's conformance checks against the "
                                   "reader on PORT; one PASS/FAIL/SKIP line per check, "
                                   "exit 1 if any failed. The reader is rebooted at the end.")
    p.add_argument("port", help="path, /dev/serial/by-id/... name, or socket://host:port")
    p.add_argument("--antenna", type=int, default=0, help="antenna of the tag checks")
    p.add_argument("--script", type=Path, help="one shell command per prompt, run in order "
                   "instead of asking (env CONFORMANCE_ACTION, CONFORMANCE_ANTENNA)")
    p.add_argument("--no-prompts", action="store_true",
                   help="skip the checks that need a person at the reader")
    p.add_argument("--wait", type=float, default=WAIT,
                   help=f"seconds to wait for an immediate answer (default {WAIT:g})")
    p.add_argument("--profile", choices=sorted(LINE_PROFILES), default="plain")
    p.add_argument("--baud", type=int, default=115200)
    p.set_defaults(handler=_conformance)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool; returns the exit code."""
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
