"""The dealer's commands: one table of {name: handler, allowed stages, arguments}.

:data:`COMMAND_TABLE` is every command the controller answers. A command is refused, each
refusal a reply that changes nothing, in this order: a repeated ``(user, id)`` gets its first
reply again; ``unknown_command`` (not in the table); ``not_authorised`` (the user's role);
``stale_command``; ``bad_args`` (the row's :data:`~tablectl.controller.args.ArgSchema`);
``wrong_phase`` (the table's :class:`~tablectl.controller.core.Stage` is not among the row's);
then the handler's own checks (``out_of_turn``, ``illegal_action``, ``duplicate_card``...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final

from tablectl.controller.args import Arg, ArgKind, ArgSchema, ArgValues, read_args
from tablectl.controller.core import Pending, Stage, key_of, target_text
from tablectl.controller.formats import START_ARGS, hand_format
from tablectl.controller.inputs import (
    Command,
    ReadStatus,
)
from tablectl.controller.outcome import (
    Event,
    HandClosed,
    HandStarted,
)
from tablectl.controller.reply import READ_ERRORS, ErrorCode, Refused, Reply
from tablectl.controller.rotating import Rotating
from tablectl.controller.runs import RunCounting, run_count
from tablectl.controller.table import (
    SeatState,
    TableSetup,
)
from tablectl.controller.views import EventFolder
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    CardIn,
    CardOutOfTurn,
    DealBoard,
    DealUp,
    DuplicateCard,
    Hand,
    HandInput,
    HandSetupError,
    MuckIn,
    RuleViolation,
    RunsIn,
    SeatSetup,
    Showdown,
    ShowIn,
)

_DUPLICATE: Final = "a card named was already dealt in this hand"
"""The refusal of a card already in the hand: never which card, nor where (it may be hidden)."""

_CHIP_ACTIONS: Final = frozenset({ActionKind.CALL, ActionKind.BET, ActionKind.RAISE,
                                  ActionKind.COMPLETE, ActionKind.BRING_IN})


class CommandHandlers(RunCounting, Rotating):
    """The commands' dispatch and handlers (the rows of :data:`COMMAND_TABLE`)."""

    def _on_command(self, cmd: Command, decided: Reply | None) -> tuple[Reply, bool]:
        key = (cmd.user, cmd.id)
        cached = self._replies_cur.get(key) or self._replies_prev.get(key)
        if cached is not None:
            self._run.log.append(f"command {cmd.id} from {cmd.user} repeated: same reply")
            return cached, True
        if decided is not None and not decided.ok:
            self._replies_cur[key] = decided
            self._run.log.append(f"{cmd.name} from {cmd.user} refused when journaled: "
                                 f"{decided.code}: {decided.reason}")
            return decided, False
        try:
            result = self._execute(cmd, admit=decided is None)
            reply = Reply.success(cmd.id, result)
        except Refused as refusal:
            reply = Reply.failure(cmd.id, refusal.code, refusal.reason)
            self._run.log.append(f"{cmd.name} from {cmd.user} refused: {refusal.code.value}: "
                                 f"{refusal.reason}")
        self._replies_cur[key] = reply
        return reply, False

    def _execute(self, cmd: Command, *, admit: bool = True) -> dict[str, JsonValue]:
        """Refusals in order: unknown command, role and age (``admit``), arguments, phase;
        then the command's own checks and its work."""
        rule = COMMAND_TABLE.get(cmd.name)
        if rule is None:
            raise Refused(ErrorCode.UNKNOWN_COMMAND, f"no command {cmd.name!r}")
        if admit:
            self._admit(cmd)
        args = read_args(rule.args, cmd.args, self._setup)
        if self._stage not in rule.phases:
            raise Refused(ErrorCode.WRONG_PHASE,
                          rule.wrong_phase[self._stage].format(name=cmd.name,
                                                               hand=self._hand_id))
        return rule.handler(self, cmd, args)

    def _admit(self, cmd: Command) -> None:
        role = self._setup.roles.get(cmd.user)
        if role is None:
            raise Refused(ErrorCode.NOT_AUTHORISED, f"user {cmd.user!r} has no role here")
        if cmd.name not in self._setup.permissions.get(role, frozenset()):
            raise Refused(ErrorCode.NOT_AUTHORISED,
                           f"a {role} may not {cmd.name} (user {cmd.user!r})")
        if cmd.sent_at is not None:
            age = (cmd.at - cmd.sent_at).total_seconds()
            # a time stamp ahead is as far off as one behind: else a command stamped a year
            # ahead would be taken at any time until then
            if abs(age) > self._setup.max_command_age:
                when = f"{age:.1f} s ago" if age > 0 else f"{-age:.1f} s in the future"
                raise Refused(ErrorCode.STALE_COMMAND,
                               f"sent {when} (at most {self._setup.max_command_age:g} s "
                               "either way)")

    def _in_hand(self) -> Hand:
        """The hand in progress (the command table let only such commands through)."""
        assert self._hand is not None and self._stage is Stage.IN_HAND
        return self._hand

    def _correction(self, kind: str, cmd: Command, **fields: JsonValue) -> None:
        self._run.events.append(Event("correction", {"kind": kind, "by": cmd.user, **fields}))

    def _cmd_start_hand(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        blocking = [c.value for c in self._errors if c in READ_ERRORS]
        if blocking:
            raise Refused(ErrorCode.WRONG_PHASE, "clear the active errors first: "
                           + ", ".join(blocking))
        if self._choosing():
            raise Refused(ErrorCode.WRONG_PHASE, "dealer's choice: choose_game first")
        bomb, boards, extra = hand_format(self._setup, args.opt_int("bomb") or 0,
                                          bool(args.opt_bool("double_board")))
        players = [SeatSetup(s.seat, s.stack, s.name) for s in self._seats.values()
                   if s.stack > 0]
        number = self._number + 1
        hand_id = f"{self._setup.table}-{number:06d}"
        try:
            hand = Hand.start(game=self._setup.game, structure=self._setup.structure,
                              rules=self._setup.rule_set, stakes=self._setup.stakes,
                              seats=sorted(players, key=lambda s: s.seat),
                              button=0 if self._stud else self._button, hand_id=hand_id,
                              bomb=bomb, boards=boards)
        except HandSetupError as exc:
            raise Refused(ErrorCode.WRONG_PHASE, f"cannot start a hand: {exc}") from exc
        checkpoint = self._table_state()
        self._replies_prev, self._replies_cur = self._replies_cur, {}
        self._pre_hand = checkpoint
        self._number = number
        self._hand_id = hand_id
        self._hand = hand
        self._stage = Stage.IN_HAND
        self._accepted.clear()
        self._staged.clear()
        self._pending = None
        self._folder = EventFolder(self._hand_json(), {p.seat: p.stack for p in players},
                                   double_board=boards == 2)
        # every hand says which game and stakes it deals: a reader of the event stream (the
        # floor, PHH export, the simulated dealer) never depends on having seen a snapshot
        game: dict[str, JsonValue] = {"game": self._game_json, "stakes": self._stakes_json}
        game.update(extra)
        seats: list[JsonValue] = [
            {"seat": p.seat, "name": p.name, "stack": p.stack, **self._player_of(p.seat)}
            for p in sorted(players, key=lambda s: s.seat)]
        self._run.events.append(Event("hand_started", {
            "hand": self._hand_json(), "button": None if self._stud else self._button,
            "seats": seats, **game}))
        public, secure = self._folder.feed(hand.events)
        self._run.events.extend(public)
        self._run.secure.extend(secure)
        self._run.started = HandStarted(number, hand_id, checkpoint)
        return {"hand": self._hand_json(), "button": None if self._stud else self._button,
                "seats": list(seats), **game}

    def _player_of(self, seat: int) -> dict[str, JsonValue]:
        """``{"player": id}`` of a seat whose config names a player id, else nothing."""
        held = self._seats.get(seat)
        return {"player": held.player_id} if held is not None and held.player_id else {}

    def _cmd_action(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        """``{seat, kind, amount, cards}``: ``seat`` omitted (a keypad) acts for the seat to
        act; ``amount`` omitted for bet, raise or complete is the smallest legal "to" total;
        ``show`` (with ``cards`` the table did not read) and ``muck`` answer a showdown."""
        given_seat = args.opt_int("seat")
        kind_text = args.text("kind").replace("_", "-")
        amount = args.opt_int("amount")
        cards_text = args.opt_cards("cards")
        kind = None if kind_text in ("show", "muck") else ActionKind(kind_text)
        hand = self._in_hand()
        exp = hand.expected()
        seat = given_seat
        if seat is None:
            if not isinstance(exp, Act | Showdown):
                raise Refused(ErrorCode.OUT_OF_TURN, "no decision is expected now")
            seat = exp.seat
        inp: HandInput
        if kind is None:
            inp = ShowIn(seat, cards_text) if kind_text == "show" else MuckIn(seat)
        else:
            if (amount is None and isinstance(exp, Act) and exp.seat == seat
                    and kind is exp.legal.bet_kind):
                amount = exp.legal.min_to
            inp = ActionIn(seat, kind, amount)
        try:
            hand.verify(inp)
        except DuplicateCard as exc:   # the engine's reason names the card, maybe a hidden one
            raise Refused(ErrorCode.DUPLICATE_CARD, _DUPLICATE) from exc
        except RuleViolation as exc:
            decision = isinstance(exp, Act | Showdown)
            wrong_seat = decision and exp.seat != seat  # type: ignore[union-attr]
            fits = isinstance(exp, Act) == isinstance(inp, ActionIn)
            code = (ErrorCode.OUT_OF_TURN if not decision or wrong_seat or not fits
                    else ErrorCode.ILLEGAL_ACTION)
            raise Refused(code, exc.reason) from exc
        events = self._apply(inp)
        self._drain()
        result: dict[str, JsonValue] = {"seat": seat, "kind": kind_text.replace("-", "_")}
        for ev in events:
            if isinstance(ev, ActionTaken) and ev.seat == seat:
                result["amount"] = ev.added
                result["to"] = ev.to
                break
        return result

    def _cmd_undo(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        hand = self._in_hand()
        inputs = hand.inputs
        last = next((i for i in range(len(inputs) - 1, -1, -1)
                     if not isinstance(inputs[i], CardIn)), None)
        if last is None:
            raise Refused(ErrorCode.NOTHING_TO_UNDO, "no decision to undo in this hand")
        if undoable(inputs) is None:
            later = [self._public_text(i.card) or "??" for i in inputs[last + 1:]
                     if isinstance(i, CardIn)]
            raise Refused(ErrorCode.NOTHING_TO_UNDO,
                           f"cards were dealt after the last decision ({' '.join(later)}): "
                           "misdeal or kill_hand instead")
        undone = inputs[last]
        rebuilt = Hand.replay(hand.start_args, inputs[:last])
        self._hand = rebuilt
        self._rebuild_folder()
        what = undone_json(undone)
        self._correction("undo", cmd, undone=what)
        return {"undone": what}

    def _rebuild_folder(self) -> None:
        hand = self._hand
        assert hand is not None
        folder = EventFolder(self._hand_json(),
                             {s.seat: s.stack for s in hand.start_args.seats},
                             double_board=hand.start_args.boards == 2)
        folder.feed(hand.events)
        self._folder = folder

    def _cmd_misdeal(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        hand = self._in_hand()
        if not misdeal_allowed(hand.inputs):
            raise Refused(ErrorCode.WRONG_PHASE,
                           "substantial action has taken place: no misdeal (the floor may "
                           "kill_hand)")
        return self._void("misdeal", cmd)

    def _cmd_kill_hand(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        return self._void("killed", cmd)

    def _void(self, result: str, cmd: Command) -> dict[str, JsonValue]:
        """Back to before the hand: stacks as they were, the button unmoved."""
        hand_json = self._hand_json()
        self._correction("misdeal" if result == "misdeal" else "kill_hand", cmd)
        stacks: list[JsonValue] = [{"seat": s.seat, "stack": s.stack}
                                   for s in sorted(self._seats.values(), key=lambda s: s.seat)]
        self._run.events.append(Event("hand_ended", {"hand": hand_json, "result": result,
                                                     "stacks": stacks, "rake": 0}))
        self._run.ended = HandClosed(self._number, self._hand_id, {
            "hand": hand_json, "result": result, "stacks": stacks, "results": [],
            "board": [], "rake": 0, "by": cmd.user, **self._game_of_hand()})
        if self._pending is not None:
            self._pending = None
            if ErrorCode.DOUBTFUL_READ in self._errors:
                self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
        self._clear_hand()
        return {"hand": hand_json, "result": result}

    def _clear_hand(self) -> None:
        if self._next_setup is not None:
            self._adopt(self._next_setup)
        self._hand = None
        self._hand_id = ""
        self._pre_hand = None
        self._stage = Stage.NO_HAND
        self._folder = None
        self._accepted.clear()
        self._staged.clear()
        self._pending = None

    def _cmd_manual_card(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        card = args.opt_card("card")
        seat = args.opt_int("seat")
        board = args.opt_bool("board")
        burn = args.opt_bool("burn")
        read_id = args.opt_str("read")
        hand = self._in_hand()
        pending = self._pending
        if pending is not None and read_id is None:
            raise Refused(ErrorCode.BAD_ARGS,
                           f"read {pending.read.read_id} is held for confirmation: name it in "
                           "'read', or confirm_read / reject_read it")
        if read_id is not None and (pending is None or pending.read.read_id != read_id):
            raise Refused(ErrorCode.NO_SUCH_READ, f"no doubtful read {read_id!r} is held")
        if card is not None and card in self._accepted and not hand.back_in_play(card):
            raise Refused(ErrorCode.DUPLICATE_CARD,   # where it is stays secret until shown
                           f"{self._name(card)} was already dealt in this hand")
        if pending is not None:
            if card is None:
                raise Refused(ErrorCode.BAD_ARGS, "replacing a read needs a card")
            read = replace(pending.read, card=card, uid=None, status=ReadStatus.ACCEPTED,
                           source=f"manual:{cmd.user}")
            key = self._target_for(read, card, hand)  # the hand may have moved (an undo)
            self._pending = None
            self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
            self._accept(card, read, key)
            self._correction("manual_card", cmd, card=self._public_text(card), read=read_id)
            return {"card": self._public_text(card), "read": read_id}
        exp = hand.expected()
        if card is None and isinstance(exp, DealBoard | DealUp):
            raise Refused(ErrorCode.BAD_ARGS, "a board or up card must be named")
        inp = CardIn(card, seat=seat, board=board, burn=burn)
        try:
            hand.verify(inp)
        except DuplicateCard as exc:   # the engine's reason names the card, maybe a hidden one
            raise Refused(ErrorCode.DUPLICATE_CARD, _DUPLICATE) from exc
        except CardOutOfTurn as exc:
            raise Refused(ErrorCode.OUT_OF_TURN, exc.reason) from exc
        except RuleViolation as exc:  # pragma: no cover (card checks raise the two above)
            raise Refused(ErrorCode.OUT_OF_TURN, exc.reason) from exc
        target = key_of(exp)
        self._placed(card, target, f"manual:{cmd.user}", None, at=cmd.at)
        self._apply(inp)
        self._drain()
        self._correction("manual_card", cmd, card=self._public_text(card),
                         target=target_text(target))
        return {"card": self._public_text(card), "target": target_text(target)}

    def _cmd_confirm_read(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        read_id = args.text("read")
        pending = self._held(read_id)
        self._pending = None
        self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
        accepted = self._on_read(replace(pending.read, status=ReadStatus.ACCEPTED),
                                 halted_ok=True)
        return {"read": read_id, "card": self._public_text(pending.card), "accepted": accepted}

    def _cmd_reject_read(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        read_id = args.text("read")
        pending = self._held(read_id)
        self._pending = None
        self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
        return {"read": read_id, "card": self._public_text(pending.card)}

    def _held(self, read_id: str) -> Pending:
        pending = self._pending
        if pending is None or pending.read.read_id != read_id:
            raise Refused(ErrorCode.NO_SUCH_READ, f"no doubtful read {read_id!r} is held")
        return pending

    def _cmd_adjust_stack(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        seat = args.integer("seat")
        amount = args.integer("amount")
        reason = args.text("reason").strip()
        current = self._seated(seat)
        stack = current.stack + amount
        if stack < 0:
            raise Refused(ErrorCode.BAD_ARGS,
                           f"seat {seat} has {current.stack}: cannot remove {-amount}")
        self._seats[seat] = replace(current, stack=stack)
        self._seat_event(seat, "adjusted", cmd, amount=amount, reason=reason)
        return {"seat": seat, "stack": stack}

    def _cmd_seat_player(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        seat = args.integer("seat")
        name = args.text("name")       # a display name, normalised (args.ArgKind.NAME)
        stack = args.integer("stack")
        if seat in self._seats:
            raise Refused(ErrorCode.BAD_ARGS,
                           f"seat {seat} is taken by {self._seats[seat].name or 'a player'}")
        self._seats[seat] = SeatState(seat, name, stack)
        self._seats = dict(sorted(self._seats.items()))
        self._seat_event(seat, "seated", cmd)
        return {"seat": seat, "name": name, "stack": stack}

    def _cmd_unseat_player(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        seat = args.integer("seat")
        current = self._seated(seat)
        self._seat_event(seat, "unseated", cmd)
        del self._seats[seat]
        return {"seat": seat, "name": current.name, "stack": current.stack}

    def _seated(self, seat: int) -> SeatState:
        current = self._seats.get(seat)
        if current is None:
            raise Refused(ErrorCode.BAD_ARGS, f"seat {seat} is empty")
        return current

    def _seat_event(self, seat: int, change: str, cmd: Command, **extra: JsonValue) -> None:
        s = self._seats[seat]
        self._run.events.append(Event("seat", {**s.to_json(), "change": change, "by": cmd.user,
                                               **extra}))

    def _cmd_next_hand(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        self._clear_hand()
        old = self._button
        if not self._stud:     # stud: the button stays frozen where it is
            self._button = self._next_button()
        self._hand_played(old)
        # an event, so that the snapshot after it has a seq of its own: a display that drops a
        # snapshot whose seq it already shows would otherwise keep the settled hand on screen
        button = None if self._stud else self._button
        game: dict[str, JsonValue] = ({"game": self._game_json, "stakes": self._stakes_json}
                                      if self._rotation_pos is not None else {})
        self._run.events.append(Event("hand_cleared", {"button": button, **game}))
        return {"button": button}

    def _next_button(self) -> int:
        live = sorted(s.seat for s in self._seats.values() if s.stack > 0)
        if not live:
            return self._button
        return next((s for s in live if s > self._button), live[0])

    def _cmd_clear_error(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        code_text = args.text("code")
        try:
            code = ErrorCode(code_text)
        except ValueError:
            raise Refused(ErrorCode.NO_SUCH_ERROR, f"no error {code_text!r}") from None
        if code not in self._errors:
            raise Refused(ErrorCode.NO_SUCH_ERROR, f"{code_text} is not active")
        if code is ErrorCode.DOUBTFUL_READ:
            self._pending = None
        self._clear(code, cmd.at, cmd.user)
        return {"code": code.value}


def _input_kind(inp: HandInput) -> str:
    if isinstance(inp, RunsIn):
        return "run_it"
    if isinstance(inp, ActionIn):
        return inp.kind.value.replace("-", "_")
    return "show" if isinstance(inp, ShowIn) else "muck"


def undoable(inputs: Sequence[HandInput]) -> HandInput | None:
    """The decision an ``undo`` takes back: the hand's last input when it is a decision (no
    card dealt after it), else None."""
    return inputs[-1] if inputs and not isinstance(inputs[-1], CardIn) else None


def undone_json(inp: HandInput) -> dict[str, JsonValue]:
    """``{seat, kind, amount}`` of a decision (``amount``: as the dealer gave it, the "to"
    total of a bet or raise; absent when none was given), ``{kind: "run_it", count}`` of a
    run count: the correction event's ``undone`` and the snapshot's ``commands.undo``."""
    assert not isinstance(inp, CardIn)
    if isinstance(inp, RunsIn):
        return {"kind": _input_kind(inp), "count": inp.count}
    what: dict[str, JsonValue] = {"seat": inp.seat, "kind": _input_kind(inp)}
    if isinstance(inp, ActionIn) and inp.amount is not None:
        what["amount"] = inp.amount
    return what


def misdeal_allowed(inputs: Sequence[HandInput]) -> bool:
    """Whether a misdeal may still be called: before substantial action (three decisions, or
    two of which one put chips in)."""
    actions = [i for i in inputs if isinstance(i, ActionIn)]
    chips = any(a.kind in _CHIP_ACTIONS for a in actions)
    return not (len(actions) >= 3 or (len(actions) >= 2 and chips))


# --- the command table -----------------------------------------------------------------------


def _action_kind(value: object, setup: TableSetup | None) -> str | None:
    text = str(value).replace("_", "-")
    if text in ("show", "muck"):
        return None
    try:
        ActionKind(text)
    except ValueError:
        return f"unknown action kind {text!r}"
    return None


def _reason_given(value: object, setup: TableSetup | None) -> str | None:
    return None if str(value).strip() else "adjust_stack needs a reason"


def _seat_number(value: object, setup: TableSetup | None) -> str | None:
    assert isinstance(value, int) and setup is not None
    return None if 1 <= value <= setup.max_seats else f"seats are 1..{setup.max_seats}"


def _not_negative(value: object, setup: TableSetup | None) -> str | None:
    assert isinstance(value, int)
    return "a stack cannot be negative" if value < 0 else None


Handler = Callable[[CommandHandlers, Command, ArgValues], dict[str, JsonValue]]


@dataclass(frozen=True, slots=True)
class CommandRule:
    """One row of the command table.

    Attributes:
        handler: does the command (its own checks raise :class:`Refused`); returns the reply's
            result.
        phases: the stages the command is allowed in; in any other it is refused
            ``wrong_phase``.
        args: its arguments.
        wrong_phase: the refusal's reason in each stage not allowed (``{name}``: the
            command, ``{hand}``: the hand's id).
    """

    handler: Handler
    phases: frozenset[Stage]
    args: ArgSchema
    wrong_phase: Mapping[Stage, str]

    def __post_init__(self) -> None:
        if set(self.wrong_phase) != set(Stage) - self.phases:
            raise ValueError("a wrong_phase reason for exactly the stages not allowed")


_ANY: Final = frozenset(Stage)

_IN_HAND: Final = frozenset({Stage.IN_HAND})

_BETWEEN: Final = frozenset({Stage.NO_HAND, Stage.SETTLED})

_NEED_HAND: Final = {Stage.NO_HAND: "{name}: no hand in progress",
                     Stage.SETTLED: "{name}: the hand is already settled"}

_NOT_IN_HAND: Final = {Stage.IN_HAND: "{name} only between hands"}

_SEAT: Final = Arg("seat", ArgKind.INT, required=True)

COMMAND_TABLE: Final[Mapping[str, CommandRule]] = MappingProxyType({
    "start_hand": CommandRule(
        CommandHandlers._cmd_start_hand, frozenset({Stage.NO_HAND}),
        START_ARGS,
        {Stage.IN_HAND: "hand {hand} is in progress",
         Stage.SETTLED: "the last hand is settled: next_hand first"}),
    "action": CommandRule(
        CommandHandlers._cmd_action, _IN_HAND,
        (Arg("seat", ArgKind.INT), Arg("kind", ArgKind.TEXT, required=True, check=_action_kind),
         Arg("amount", ArgKind.INT), Arg("cards", ArgKind.CARDS)),
        _NEED_HAND),
    "undo": CommandRule(CommandHandlers._cmd_undo, _IN_HAND, (), _NEED_HAND),
    "misdeal": CommandRule(CommandHandlers._cmd_misdeal, _IN_HAND, (), _NEED_HAND),
    "manual_card": CommandRule(
        CommandHandlers._cmd_manual_card, _IN_HAND,
        (Arg("card", ArgKind.CARD), Arg("seat", ArgKind.INT), Arg("board", ArgKind.BOOL),
         Arg("burn", ArgKind.BOOL), Arg("read", ArgKind.TEXT)),
        _NEED_HAND),
    "confirm_read": CommandRule(CommandHandlers._cmd_confirm_read, _ANY,
                                (Arg("read", ArgKind.TEXT, required=True),), {}),
    "reject_read": CommandRule(CommandHandlers._cmd_reject_read, _ANY,
                               (Arg("read", ArgKind.TEXT, required=True),), {}),
    "kill_hand": CommandRule(CommandHandlers._cmd_kill_hand, _IN_HAND, (), _NEED_HAND),
    "adjust_stack": CommandRule(
        CommandHandlers._cmd_adjust_stack, _BETWEEN,
        (_SEAT, Arg("amount", ArgKind.INT, required=True),
         Arg("reason", ArgKind.TEXT, required=True, check=_reason_given, max_len=200)),
        _NOT_IN_HAND),
    "seat_player": CommandRule(
        CommandHandlers._cmd_seat_player, _BETWEEN,
        (Arg("seat", ArgKind.INT, required=True, check=_seat_number),
         Arg("name", ArgKind.NAME, required=True),
         Arg("stack", ArgKind.INT, required=True, check=_not_negative)),
        _NOT_IN_HAND),
    "unseat_player": CommandRule(CommandHandlers._cmd_unseat_player, _BETWEEN, (_SEAT,),
                                 _NOT_IN_HAND),
    "next_hand": CommandRule(
        CommandHandlers._cmd_next_hand, frozenset({Stage.SETTLED}), (),
        dict.fromkeys((Stage.NO_HAND, Stage.IN_HAND), "next_hand only after a settled hand")),
    "run_it": CommandRule(
        CommandHandlers._cmd_run_it, _IN_HAND,
        (Arg("count", ArgKind.INT, required=True, check=run_count),), _NEED_HAND),
    "clear_error": CommandRule(CommandHandlers._cmd_clear_error, _ANY,
                               (Arg("code", ArgKind.TEXT, required=True),), {}),
    "choose_game": CommandRule(
        CommandHandlers._cmd_choose_game, frozenset({Stage.NO_HAND}),
        (Arg("game", ArgKind.TEXT, required=True, max_len=40),),
        {Stage.IN_HAND: "choose_game only between hands",
         Stage.SETTLED: "the last hand is settled: next_hand first"}),
})
"""Every command the controller answers, with its handler, phases and arguments (recall and
replay are answered by the app)."""

COMMANDS: Final = frozenset(COMMAND_TABLE)
"""The names of :data:`COMMAND_TABLE`."""
