"""SimDealer: the table's "person" — plays whole hands through simulated devices and a console.

The dealer runs its own rules engine (:class:`tablectl.game.Hand`, same game, rules, stakes
and seats as the table) to know what comes next: which seat gets the next card, burns, board
cards, stud up cards, whose turn it is and what is legal. It then does what a human dealer
does, through the same channels a human uses:

* **cards** — on a shoe table it draws from a :class:`~hardware_sim.devices.SimShoe` (the shoe
  only reports the draw; the daemon assigns the card by dealing order); on an antenna table it
  places each card on a :class:`~hardware_sim.devices.SimTable` antenna (``seatN``,
  ``boardN``, ``burn``), moves a folded seat's cards to ``muck`` and clears the table when the
  pot is pushed;
* **decisions and corrections** — through a :class:`~hardware_sim.console.Console`, each
  decision once the console shows the daemon expects it (:mod:`hardware_sim.turns`):
  ``start_hand`` (no args), ``action {seat, kind, amount?}``, ``manual_card {card,
  seat|board|burn}`` for a card the device lost, ``clear_error {code}`` after a fault the
  daemon flags, ``next_hand`` once the pot is pushed, the MQTT command API in production
  (:class:`~hardware_sim.console.MqttConsole`) or an in-memory recorder in unit tests;
* **faults on demand** — :class:`~hardware_sim.faults.FaultPlan` entries (byte faults,
  unplug, reboot, duplicate read, foreign tag, misread, wrong antenna, two cards at once, a
  card face up) fire at a given card of a given hand.

Decisions come from a :class:`~hardware_sim.strategies.Strategy`
(:mod:`hardware_sim.strategies`: seeded random or scripted). What a hand did is a
:class:`~hardware_sim.records.HandSummary`.

Every device step is followed by ``await ports.step()`` (:class:`DevicePorts`): the in-process
loopback host pumps the bytes there, a served device waits for the pace. Nothing here reads the
wall clock or sleeps; everything random comes from the seed, so one seed gives one byte stream.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from firmware_bridge.messages import TagSeen
from hardware_sim.adopt import table_of_reply
from hardware_sim.console import Console
from hardware_sim.devices import SimDevice, SimShoe, SimTable
from hardware_sim.errors import ConsoleRefusedError, DealerError
from hardware_sim.faults import BYTE_FAULTS, CLEARS, FaultKind, FaultPlan, FaultRecord
from hardware_sim.records import CommandRecord, DealtCard, HandSummary
from hardware_sim.strategies import RandomStrategy, Strategy
from hardware_sim.turns import turn_of
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    Burn,
    CardIn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    Expectation,
    Hand,
    HandStart,
    LegalActions,
    RuleSet,
    RuleViolation,
    SeatSetup,
    Showdown,
    ShowIn,
    Stakes,
)

_LOGGER = logging.getLogger(__name__)

CardExpectation = DealHole | DealUp | DealDown | Burn | DealBoard
_CARD_EXPECTATIONS: Final = (DealHole, DealUp, DealDown, Burn, DealBoard)


# ---- seams -------------------------------------------------------------------------------------


class DevicePorts(Protocol):
    """How the dealer's device actions reach a host (see :mod:`hardware_sim.ports`)."""

    async def step(self) -> None:
        """Called after every device action: let the bytes flow (and keep the pace)."""
        ...

    async def unplug(self, device: SimDevice) -> None:
        """Pull ``device``'s cable (it keeps its queue)."""
        ...

    async def replug(self, device: SimDevice) -> None:
        """Put the cable back; the host reconnects."""
        ...

    def arm(self, device: SimDevice, kind: str, seconds: float = 0.0) -> None:
        """A one-shot byte fault on ``device``'s next frame: ``garbage``, ``bitflip``,
        ``drop``, ``dup_frame`` or ``delay`` (by ``seconds``)."""
        ...


# ---- the dealer --------------------------------------------------------------------------------


@dataclass(slots=True)
class _HandState:
    hand: Hand
    number: int
    card_no: int = 0
    cards: list[DealtCard] = field(default_factory=list)
    actions: list[ActionIn] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    commands: list[CommandRecord] = field(default_factory=list)
    order: list[Card] = field(default_factory=list)


class SimDealer:
    """Deals hands of one game through one simulated card device and a console.

    Args:
        game / structure / rules / stakes: the table's game, as the daemon's config says.
        seats: the seated players with their starting stacks (stacks carry over between
            hands; a seat with no chips left sits out).
        button: the button's seat for the first hand; it moves one seat clockwise (to the
            next seat with chips) after each hand. Stud ignores it: the dealer sits before
            seat 1 (button 0) and does not move, as the daemon's controller deals it.
        device: the :class:`SimShoe` or :class:`SimTable` that reads the cards; its deck is the
            deck dealt. A table needs antennas ``seatN`` for every seat, ``board1..5``,
            ``burn`` and ``muck`` (:func:`~hardware_sim.devices.standard_roles`).
        console: where commands go. ports: how device output reaches the host.
        strategy: decisions (default: :class:`RandomStrategy` with ``seed``).
        seed: seeds the table's shuffle (a shoe shuffles with its own seed).
        faults: faults to cause. cards: scripted cards, in dealing order (burns included),
            across hands; once used up, cards come at random.
        foreign_deck: the other deck, for FOREIGN_TAG faults.
        table_id: prefix of hand ids.
        strict: raise :class:`ConsoleRefusedError` when a command is refused.
        rebuy: a player who goes broke buys in again between hands, as at a real cash
            table: ``adjust_stack {seat, amount: their starting stack, reason: "rebuy"}``
            (the console user needs the floor role), so the table never runs out of players.

    Raises:
        ValueError: the device has no deck, or a table lacks an antenna.
    """

    def __init__(self, *, game: GameKind, structure: BettingStructure, rules: RuleSet,
                 stakes: Stakes, seats: Sequence[SeatSetup], button: int,
                 device: SimShoe | SimTable, console: Console, ports: DevicePorts,
                 strategy: Strategy | None = None, seed: int = 0,
                 faults: Sequence[FaultPlan] = (), cards: Sequence[Card] = (),
                 foreign_deck: Deck | None = None, table_id: str = "sim",
                 strict: bool = True, rebuy: bool = False) -> None:
        deck = device.deck
        if deck is None:
            raise ValueError("the dealer's device needs a deck")
        self.deck: Deck = deck
        self.game = game
        self.structure = structure
        self.rules = rules
        self.stakes = stakes
        self.device = device
        self.console = console
        self.ports = ports
        self.strategy: Strategy = strategy or RandomStrategy(seed)
        self.faults = tuple(faults)
        self.foreign_deck = foreign_deck
        self.table_id = table_id
        self.strict = strict
        self._names = {s.seat: s.name for s in seats}
        self.stacks: dict[int, int] = {s.seat: s.stack for s in sorted(seats, key=_seat)}
        self.rebuy = rebuy
        self._buy_ins = {s.seat: s.stack for s in seats if s.stack > 0}
        self.rebuys: list[tuple[int, int, int]] = []
        """``(after hand number, seat, amount)`` of every rebuy so far."""
        self.button = 0 if game.is_stud else button
        self.hands_played = 0
        self._script = list(cards)
        self._fired: list[FaultRecord] = []
        self._rng = random.Random(seed)
        if isinstance(device, SimTable):
            needed = [f"seat{s}" for s in self.stacks] + [f"board{i}" for i in range(1, 6)]
            needed += ["burn", "muck"]
            for role in needed:
                try:
                    device.antenna(role)
                except KeyError:
                    raise ValueError(f"the table has no {role} antenna") from None
        for plan in self.faults:
            if plan.kind is FaultKind.WRONG_ANTENNA and not isinstance(device, SimTable):
                raise ValueError("a wrong-antenna fault needs a table device")
            if plan.kind in (FaultKind.DUPLICATE_READ,) and not isinstance(device, SimShoe):
                raise ValueError("a duplicate-read fault needs a shoe")
            if plan.kind is FaultKind.FOREIGN_TAG and foreign_deck is None:
                raise ValueError("a foreign-tag fault needs foreign_deck")

    # ---- public API ------------------------------------------------------------------------

    @property
    def missed_faults(self) -> tuple[FaultPlan, ...]:
        """Planned faults of the hands played so far that never fired (their card was not
        dealt: the hand ended before it)."""
        fired = {id(f.plan) for f in self._fired}
        return tuple(p for p in self.faults if p.hand <= self.hands_played and id(p) not in fired)

    async def play(self, hands: int) -> list[HandSummary]:
        """Play ``hands`` hands (fewer if fewer than two seats have chips left)."""
        out: list[HandSummary] = []
        for _ in range(hands):
            if sum(1 for v in self.stacks.values() if v > 0) < 2:
                break
            out.append(await self.play_hand())
        return out

    def next_start(self) -> HandStart:
        """The start of the next hand: seats with chips, the button, the hand id."""
        seats = tuple(SeatSetup(s, v, self._names.get(s, "")) for s, v in self.stacks.items()
                      if v > 0)
        number = self.hands_played + 1
        return HandStart(self.game, self.structure, self.rules, self.stakes, seats,
                         self.button, f"{self.table_id}-{number:06d}")

    async def play_hand(self) -> HandSummary:
        """Deal one complete hand: start it on the console, deal every card, enter every
        decision, muck folded hands, settle, collect the cards; move the button.

        Raises:
            DealerError: fewer than two seats with chips, a scripted card or action that does
                not fit, or (strict) a refused command.
        """
        start = self.next_start()
        if len(start.seats) < 2:
            raise DealerError("fewer than two seats have chips")
        hand = Hand.replay(start, ())
        st = _HandState(hand, self.hands_played + 1)
        self._prepare_cards(st)
        reply = await self._command(st, "start_hand", {})
        table = table_of_reply(reply, start)
        if table is not None:
            # the daemon's table has a history of its own (an earlier run): deal its hand
            start, number = table
            self.stacks = {s.seat: s.stack for s in start.seats}
            self.button = start.button
            # a table dealing a rotation: this hand's game is the daemon's
            self.game, self.structure, self.stakes = start.game, start.structure, start.stakes
            self.hands_played = number - 1
            st.hand = hand = Hand.replay(start, ())
            st.number = number
        while not hand.is_done:
            exp = hand.expected()
            match exp:
                case DealHole() | DealUp() | DealDown() | Burn() | DealBoard():
                    await self._deal(st, exp)
                case Act(legal=legal):
                    await self._act(st, legal)
                case Showdown(seat=seat):   # the house wants every hand shown by the dealer
                    await self.console.wait_turn(turn_of(hand, seat, showdown=True))
                    await self._command(st, "action", {"seat": seat, "kind": "show"})
                    hand.apply(ShowIn(seat))
                case Done():  # pragma: no cover - is_done covers it
                    break
        await self._push(st)
        self.hands_played += 1
        self._fired.extend(st.faults)
        self.stacks.update(hand.final_stacks)
        self._move_button()        # as the daemon does at next_hand, before anyone rebuys
        if self.rebuy:
            await self._rebuy_broke(st)
        _LOGGER.info("%s: hand over: %s", start.hand_id, hand.results)
        return HandSummary(
            number=st.number, hand_id=start.hand_id, start=start, cards=tuple(st.cards),
            actions=tuple(st.actions), inputs=hand.inputs, events=hand.events,
            results=hand.results, final_stacks=tuple(sorted(hand.final_stacks.items())),
            faults=tuple(st.faults), commands=tuple(st.commands))

    # ---- dealing -----------------------------------------------------------------------------

    def _prepare_cards(self, st: _HandState) -> None:
        if isinstance(self.device, SimShoe):
            self.device.new_shoe()
            return
        order = [c for c in self.deck.uids_by_card if c not in self._script]
        self._rng.shuffle(order)
        st.order = order

    def _next_card(self, st: _HandState) -> Card | None:
        """The next scripted card, else (table) the next of the shuffled order, else None
        (the shoe decides)."""
        while self._script:
            card = self._script.pop(0)
            if not self._dealt(st, card):
                return card
        back = [c for c in self.deck.uids_by_card if st.hand.back_in_play(c)]
        if isinstance(self.device, SimTable):
            while st.order:
                card = st.order.pop(0)
                if not self._dealt(st, card):
                    return card
            if back:   # stud's seventh street ran short: burns (and discards) come back
                card = self._rng.choice(back)
                for antenna in ("burn", "muck"):
                    self.device.remove(antenna, card)
                return card
            raise DealerError("the deck is exhausted")
        if not self.device.remaining and back:   # the recycled cards go into the shoe
            self._rng.shuffle(back)
            self.device.order.extend(back)
        return None

    @staticmethod
    def _dealt(st: _HandState, card: Card) -> bool:
        return any(d.card == card for d in st.cards)

    def _faults_at(self, st: _HandState, card_no: int) -> list[FaultPlan]:
        return [f for f in self.faults if f.hand == st.number and f.at_card == card_no]

    async def _deal(self, st: _HandState, exp: CardExpectation) -> None:
        st.card_no += 1
        plans = self._faults_at(st, st.card_no)
        kinds = {p.kind for p in plans}
        device = self.device
        unplugged: FaultPlan | None = None
        for plan in plans:
            if plan.kind in BYTE_FAULTS:
                self.ports.arm(device, plan.kind.value, plan.seconds)
            elif plan.kind is FaultKind.FOREIGN_TAG:
                await self._foreign(st, plan, exp)
            elif plan.kind is FaultKind.UNPLUG:
                unplugged = plan
                await self.ports.unplug(device)
                if plan.power_cut:
                    device.reboot()
                st.faults.append(FaultRecord(plan, None, f"unplugged for {plan.cards} cards"))
        card = self._next_card(st)
        face_up = isinstance(exp, DealUp) or FaultKind.FACE_UP in kinds
        target = self._target(exp)
        if FaultKind.MISREAD in kinds:
            card = self._misread(card, target)
            self._apply_card(st, exp, card, face_up=face_up, read=False)
            st.faults.append(FaultRecord(_plan(plans, FaultKind.MISREAD), card,
                                         "passed unread"))
            await self.ports.step()
            await self._manual_card(st, card, exp)
            await self._clear_missed(st)
        elif FaultKind.TWO_AT_ONCE in kinds:
            await self._two_at_once(st, exp, card, plans)
        elif FaultKind.WRONG_ANTENNA in kinds and isinstance(device, SimTable):
            plan = _plan(plans, FaultKind.WRONG_ANTENNA)
            assert card is not None
            wrong = plan.antenna or self._wrong_antenna(target)
            device.place(wrong, card)
            await self.ports.step()
            await self._clear(st, plan)
            device.remove(wrong, card)
            device.place(target, card)
            st.faults.append(FaultRecord(plan, card, f"landed on {wrong}, moved to {target}"))
            self._apply_card(st, exp, card, face_up=face_up)
            await self.ports.step()
        else:
            card = self._read(card, target, face_up=face_up)
            self._apply_card(st, exp, card, face_up=face_up)
            if FaultKind.REBOOT in kinds:
                device.reboot()   # before the read left the device: it is lost
                st.faults.append(FaultRecord(_plan(plans, FaultKind.REBOOT), card,
                                             "device rebooted, read lost"))
                await self.ports.step()
                await self._manual_card(st, card, exp)
                await self._clear_missed(st)
            else:
                await self.ports.step()
        if FaultKind.FACE_UP in kinds:
            st.faults.append(FaultRecord(_plan(plans, FaultKind.FACE_UP), card,
                                         "dealt face up by mistake"))
        if FaultKind.DUPLICATE_READ in kinds and isinstance(device, SimShoe):
            device.duplicate_read()
            st.faults.append(FaultRecord(_plan(plans, FaultKind.DUPLICATE_READ), card,
                                         "read twice"))
            await self.ports.step()
        for plan in plans:
            if plan.kind in BYTE_FAULTS:
                st.faults.append(FaultRecord(plan, card, f"{plan.kind.value} on its frame"))
        if unplugged is not None:
            for _ in range(unplugged.cards):
                nxt = st.hand.expected()
                if not isinstance(nxt, _CARD_EXPECTATIONS):
                    break
                st.card_no += 1
                t = self._target(nxt)
                up = isinstance(nxt, DealUp)
                c = self._read(self._next_card(st), t, face_up=up)
                self._apply_card(st, nxt, c, face_up=up)
            await self.ports.replug(device)
            await self.ports.step()

    def _read(self, card: Card | None, target: str, *, face_up: bool) -> Card:
        """The device reads ``card`` (shoe: drawn; table: placed on ``target``)."""
        device = self.device
        if isinstance(device, SimShoe):
            read = device.draw_face_up(card) if face_up else device.draw(card)
            return self._card_of(read)
        assert card is not None
        device.place(target, card)
        return card

    def _card_of(self, read: TagSeen) -> Card:
        card = self.deck.card_for(read.uid_hex)
        if card is None:  # pragma: no cover - the shoe holds only its deck
            raise DealerError(f"the shoe read a tag outside its deck: {read.uid_hex}")
        return card

    def _misread(self, card: Card | None, target: str) -> Card:
        device = self.device
        if isinstance(device, SimShoe):
            before = list(device.order)
            device.misread(card)
            if card is None:
                card = next(c for c in before if c not in device.order)
            return card
        assert card is not None
        # an antenna table misses a card that lands outside every antenna's field
        return card

    async def _two_at_once(self, st: _HandState, exp: CardExpectation, card: Card | None,
                           plans: list[FaultPlan]) -> None:
        device = self.device
        plan = _plan(plans, FaultKind.TWO_AT_ONCE)
        if isinstance(device, SimShoe):
            if card is not None:
                device.order.remove(card)
                device.order.insert(0, card)
            second_card = self._next_card(st)
            if second_card is not None:
                device.order.remove(second_card)
                device.order.insert(1, second_card)
            first, second = (self._card_of(r) for r in device.two_at_once())
        else:
            assert card is not None
            first, second = card, self._next_card(st) or card
        self._apply_card(st, exp, first, face_up=isinstance(exp, DealUp))
        nxt = st.hand.expected()
        if not isinstance(nxt, _CARD_EXPECTATIONS):
            raise DealerError(f"two_at_once at card {st.card_no}: no card is dealt after it")
        st.card_no += 1
        if isinstance(device, SimTable):
            target = self._target(exp)
            device.place_many(target, [first, second])
            await self.ports.step()
            device.remove(target, second)
            device.place(self._target(nxt), second)
        self._apply_card(st, nxt, second, face_up=isinstance(nxt, DealUp))
        st.faults.append(FaultRecord(plan, first, f"came out with {second}"))
        await self.ports.step()

    async def _foreign(self, st: _HandState, plan: FaultPlan, exp: CardExpectation) -> None:
        assert self.foreign_deck is not None
        card = plan.foreign or next(iter(self.foreign_deck.uids_by_card))
        uid = bytes.fromhex(self.foreign_deck.uid_for(card))
        device = self.device
        if isinstance(device, SimShoe):
            device.foreign_tag(uid)
        else:
            target = self._target(exp)
            device.place(target, uid)
            await self.ports.step()
            device.remove(target, uid)
        st.faults.append(FaultRecord(plan, card, f"tag of deck {self.foreign_deck.deck_id}"))
        await self.ports.step()
        await self._clear(st, plan)

    def _apply_card(self, st: _HandState, exp: CardExpectation, card: Card, *,
                          face_up: bool, read: bool = True) -> None:
        target = self._target(exp)
        seat = exp.seat if isinstance(exp, DealHole | DealUp | DealDown) else None
        try:
            st.hand.apply(CardIn(card, seat=seat, board=isinstance(exp, DealBoard) or None,
                                 burn=isinstance(exp, Burn) or None))
        except RuleViolation as exc:
            raise DealerError(f"card {card} does not fit: {exc.reason}") from exc
        st.cards.append(DealtCard(card, target, face_up, read))

    async def _manual_card(self, st: _HandState, card: Card, exp: CardExpectation) -> None:
        args: dict[str, object] = {"card": str(card)}
        if isinstance(exp, DealHole | DealUp | DealDown):
            args["seat"] = exp.seat
        elif isinstance(exp, DealBoard):
            args["board"] = True
        else:
            args["burn"] = True
        await self._command(st, "manual_card", args)
        last = st.cards[-1] if st.cards and st.cards[-1].card == card else None
        if last is not None:
            st.cards[-1] = DealtCard(last.card, last.target, last.face_up, read=False)

    @staticmethod
    def _target(exp: Expectation) -> str:
        match exp:
            case DealHole(seat=seat) | DealUp(seat=seat) | DealDown(seat=seat):
                return f"seat{seat}"
            case DealBoard(index=index):
                return f"board{index + 1}"
            case Burn():
                return "burn"
            case _:  # pragma: no cover
                raise DealerError(f"not a card: {exp}")

    def _wrong_antenna(self, target: str) -> str:
        """An antenna the hand does not expect a card on: the first empty seat after the
        target (else the next seat in the hand); for board and burn cards the other one."""
        device = self.device
        assert isinstance(device, SimTable)
        if not target.startswith("seat"):
            return "burn" if target.startswith("board") else "board5"
        seat = int(target[4:])
        numbers = sorted(r.number for r in device.roles if r.kind == "seat" and not r.slot)
        empty = [n for n in numbers if self.stacks.get(n, 0) <= 0]
        if empty:
            after = [n for n in empty if n > seat]
            return f"seat{(after or empty)[0]}"
        seats = sorted(self.stacks)
        return f"seat{seats[(seats.index(seat) + 1) % len(seats)]}"

    # ---- decisions -----------------------------------------------------------------------------

    async def _act(self, st: _HandState, legal: LegalActions) -> None:
        action = self.strategy.choose(st.hand, legal)
        # the cards went by the device, the decision goes by the console: wait until the
        # daemon has read them all and expects this seat (hardware_sim.turns)
        await self.console.wait_turn(turn_of(st.hand, action.seat))
        args: dict[str, object] = {"seat": action.seat, "kind": action.kind.value}
        if action.amount is not None:
            args["amount"] = action.amount
        await self._command(st, "action", args)
        try:
            st.hand.apply(action)
        except RuleViolation as exc:
            raise DealerError(f"action {action} refused by the rules: {exc.reason}") from exc
        st.actions.append(action)
        if action.kind is ActionKind.FOLD and isinstance(self.device, SimTable):
            for dealt in st.cards:
                if dealt.target == f"seat{action.seat}":
                    self.device.remove(dealt.target, dealt.card)
                    self.device.place("muck", dealt.card)
            await self.ports.step()

    async def _push(self, st: _HandState) -> None:
        """The pot goes to the winners, the cards are collected, the button moves on."""
        if isinstance(self.device, SimTable):
            self.device.clear()
            await self.ports.step()
        await self._command(st, "next_hand", {})

    async def _command(self, st: _HandState, name: str, args: Mapping[str, object], *,
                       required: bool = True) -> Mapping[str, object]:
        reply = await self.console.command(name, args)
        st.commands.append(CommandRecord(name, dict(args), dict(reply)))
        if self.strict and required and not reply.get("ok", False):
            raise ConsoleRefusedError(name, reply)
        return reply

    async def _clear(self, st: _HandState, plan: FaultPlan) -> None:
        """Clear the read error the daemon raised for ``plan`` (a refusal is not fatal: the
        daemon may not have flagged it, or the console user may not be floor staff)."""
        codes = (plan.clear,) if plan.clear is not None else CLEARS.get(plan.kind, ())
        for code in filter(None, codes):
            reply = await self._command(st, "clear_error", {"code": code}, required=False)
            if reply.get("ok", False):
                return

    async def _clear_missed(self, st: _HandState, attempts: int = 50) -> None:
        """Clear the ``missed_read`` error the daemon raises when its reader reports a card
        that passed unread (or a reboot that may have lost reads). The report travels on the
        serial line and may land a moment after the dealer's manual card: retry while the
        daemon says there is no such error yet (a refusal for another reason is final)."""
        for _ in range(attempts):
            reply = await self._command(st, "clear_error", {"code": "missed_read"},
                                        required=False)
            error = reply.get("error")
            code = error.get("code") if isinstance(error, Mapping) else None
            if reply.get("ok", False) or code != "no_such_error":
                return
            await self.ports.step()

    async def _rebuy_broke(self, st: _HandState) -> None:
        """Every seat left without chips buys its starting stack again (between hands)."""
        for seat, stack in sorted(self.stacks.items()):
            amount = self._buy_ins.get(seat, 0)
            if stack > 0 or amount <= 0:
                continue
            await self._command(st, "adjust_stack", {"seat": seat, "amount": amount,
                                                     "reason": "rebuy"})
            self.stacks[seat] = amount
            self.rebuys.append((st.number, seat, amount))

    def _move_button(self) -> None:
        if self.game.is_stud:
            return
        live = sorted(s for s, v in self.stacks.items() if v > 0)
        if not live:
            return
        after = [s for s in live if s > self.button]
        self.button = after[0] if after else live[0]


def _seat(s: SeatSetup) -> int:
    return s.seat


def _plan(plans: Sequence[FaultPlan], kind: FaultKind) -> FaultPlan:
    return next(p for p in plans if p.kind is kind)

