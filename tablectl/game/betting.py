"""The betting round: forced bets, who acts next, the legal actions and their sizes.

Rules (the house-rule fields read are named in brackets; ``docs/rules.md`` has every rule and
its test):

* Forced bets are posted when the hand starts: antes, a big-blind ante (dead money in the
  main pot), then the small blind (first seat left of the button; heads-up the button), the
  big blind and an optional straddle (needs three seats) [short_big_blind]. Stud posts antes
  only; its bring-in is the first decision of third street [partial_bring_in].
* Who opens is the round's :class:`~tablectl.game.streets.Opener`: left of the last blind
  (heads-up the button), the first live seat left of the button, or a stud opener
  (``game/opener.py``). An all-in opener passes the turn on.
* Fixed limit bets the round's size (``Round.big_bet``); stud's bring-in may be completed to
  the small bet. Raise cap [raise_cap]; short all-in raises [short_all_in_reopens,
  first_raise_reopens, limit_raise_after_short_all_in]; raises "to" the most an opponent can
  match [raise_capped_at_effective_stack]. Pot limit: a raise is at most the pot after
  calling. No limit and pot limit: the minimum raise is the larger of the minimum bet and the
  last full raise. Folding is allowed only facing a bet.
* A round ends when every seat that can still bet has acted and matched the highest bet, or
  when no decision can change a stack (``game/contest.py``); an uncalled bet goes back.
"""

from __future__ import annotations

from typing import Final

from tablectl.domain.games import BettingStructure
from tablectl.game.contest import matchable, nothing_to_decide
from tablectl.game.errors import RuleViolation
from tablectl.game.memo import ACTS
from tablectl.game.model import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    BetReturned,
    ForcedBet,
    ForcedKind,
    HandEvent,
    LegalActions,
)
from tablectl.game.opener import stud_opener
from tablectl.game.player import Player
from tablectl.game.rules import LimitRaiseAfterShortAllIn, PartialBringIn, Reopen, ShortBigBlind
from tablectl.game.start import HandStart
from tablectl.game.streets import Opener, Round, StreetPlan

ONE_BET: Final = frozenset({ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE})
_FOLD_CALL: Final = frozenset({ActionKind.FOLD, ActionKind.CALL})
_CHECK: Final = frozenset({ActionKind.CHECK})
_BET_KINDS: Final = (ActionKind.BET, ActionKind.COMPLETE, ActionKind.RAISE)
_WAGER_KINDS: Final = {(facing, kind): (_FOLD_CALL if facing else _CHECK) | {kind}
                       for facing in (False, True) for kind in ONE_BET}


class BettingRound:
    """The betting of one hand, round after round (mutable; owned by the hand machine).

    ``players`` is the hand's own list in position order; the round changes their bets,
    stacks and standing in place. Player indices are positions in that list.
    """

    def __init__(self, players: list[Player], start: HandStart, plan: StreetPlan) -> None:
        self._p = players
        self._n = len(players)
        self._plan = plan
        self._rules = rules = start.rules
        self._stakes = start.stakes
        self.limit = start.structure is BettingStructure.FIXED_LIMIT
        self._pot_limit = start.structure is BettingStructure.POT_LIMIT
        self._cap_bets = rules.raise_cap.bets if self.limit else None
        self._complete_mode = (rules.limit_raise_after_short_all_in
                               is LimitRaiseAfterShortAllIn.COMPLETE)
        self._effective_cap = rules.raise_capped_at_effective_stack
        self._reopen_adds_up = rules.short_all_in_reopens is Reopen.FULL_BET
        self._round = plan.rounds[0]
        self._completion = False   # stud's third street: a wager below the small bet completes
        self.dead = 0              # dead money for the main pot (a big-blind ante)
        self.level = 0             # the highest bet this round
        self._full_level = 0       # the bet level of the last full bet or raise
        self.min_inc = 0           # no limit and pot limit: the minimum raise
        self._bets_count = 0       # bets and raises this round, for the cap
        self._marker = 0           # full bets and raises this round (reopens the action)
        self._cap_lifted = False
        self.to_act: int | None = None
        self.bring_in_pending = False
        self._wagered = False
        self.last_aggressor: int | None = None
        self.big_blind_index: int | None = None
        self._last_blind_index: int | None = None

    # --- forced bets and opening ----------------------------------------------------------------

    def post_forced(self, events: list[HandEvent], bomb: int = 0) -> None:
        """Post the antes and (button games) the blinds; the blinds open the first round.

        ``bomb``: a bomb pot: every player antes ``bomb`` instead, and no blind is posted.
        """
        stakes = self._stakes
        if bomb:
            for p in self._p:
                amount = p.pay(bomb)
                events.append(ForcedBet(p.seat, ForcedKind.ANTE, amount, p.all_in))
                p.bet = 0
            return
        if stakes.ante:
            for p in self._p:
                amount = p.pay(stakes.ante)
                events.append(ForcedBet(p.seat, ForcedKind.ANTE, amount, p.all_in))
        if not self._plan.blinds:
            for p in self._p:
                p.bet = 0
            return
        n = self._n
        blinds: list[tuple[int, ForcedKind, int]] = []
        if stakes.small_blind:
            sb, bb = (n - 1, 0) if n == 2 else (0, 1)
            blinds += [(sb, ForcedKind.SMALL_BLIND, stakes.small_blind),
                       (bb, ForcedKind.BIG_BLIND, stakes.big_blind)]
        else:
            bb = 0
            blinds.append((bb, ForcedKind.BIG_BLIND, stakes.big_blind))
        if stakes.straddle and n >= 3:
            blinds.append(((bb + 1) % n, ForcedKind.STRADDLE, stakes.straddle))
        self.big_blind_index = bb
        if stakes.big_blind_ante:
            # one ante for the table: dead money in the main pot, not part of the big
            # blind's own stake when side pots are built
            p = self._p[bb]
            amount = p.pay(stakes.big_blind_ante)
            p.committed -= amount
            self.dead += amount
            events.append(ForcedBet(p.seat, ForcedKind.BIG_BLIND_ANTE, amount, p.all_in))
        for p in self._p:
            p.bet = 0
        level = 0
        full_blind = self._rules.short_big_blind is ShortBigBlind.FULL_BLIND
        for index, kind, amount in blinds:
            p = self._p[index]
            paid = p.pay(amount)
            events.append(ForcedBet(p.seat, kind, paid, p.all_in))
            if kind is not ForcedKind.SMALL_BLIND:
                level = max(level, amount if full_blind else paid)
        self._last_blind_index = blinds[-1][0]
        self.level = max([level, *(p.bet for p in self._p)])
        self._full_level = self.level
        self.min_inc = max(stakes.min_bet or stakes.big_blind, stakes.straddle if n >= 3 else 0)
        counted = 0
        if self._rules.raise_cap.blind_counts:
            counted = sum(1 for _, kind, _ in blinds if kind is not ForcedKind.SMALL_BLIND)
        self._bets_count = counted

    def open(self, rnd: Round) -> int | None:
        """Start the betting of ``rnd`` (its cards dealt); return the index of the player to
        act, or None when nobody can act (the round is over)."""
        self._round = rnd
        self._completion = rnd.opener is Opener.BRING_IN
        for p in self._p:
            p.acted = False
            p.acted_marker = -1
        self.last_aggressor = None
        self._wagered = False
        contenders = sum(1 for p in self._p if not p.folded)
        self._cap_lifted = self._rules.raise_cap.lifted_heads_up and contenders == 2
        if rnd.opener is not Opener.BLINDS:
            self.level = 0
            self._full_level = 0
            self.min_inc = self._stakes.min_bet or self._stakes.big_blind or \
                self._stakes.small_bet
            self._bets_count = 0
        match rnd.opener:
            case Opener.BLINDS:
                assert self._last_blind_index is not None
                return self.next_to_act(self._last_blind_index)
            case Opener.BUTTON:
                return self.next_to_act(self._n - 1)
        opener = stud_opener(self._p, self._plan, self._rules,
                             bring_in=rnd.opener is Opener.BRING_IN)
        if rnd.opener is Opener.BRING_IN and self._stakes.bring_in \
                and not nothing_to_decide(self._p):
            # an all-in low card passes the bring-in to the next seat that can post it
            for step in range(self._n):
                j = (opener + step) % self._n
                if not self._p[j].folded and not self._p[j].all_in:
                    self.bring_in_pending = True
                    return j
            return self.next_to_act(opener)
        return self.next_to_act((opener - 1) % self._n)

    # --- whose turn -------------------------------------------------------------------------------

    def next_to_act(self, i: int) -> int | None:
        """The index of the next player after ``i`` who must act, or None: the round is over."""
        players = self._p
        if nothing_to_decide(players):
            return None
        n = self._n
        level = self.level
        for step in range(1, n + 1):
            j = (i + step) % n
            q = players[j]
            if q.folded or q.all_in or (q.acted and q.bet >= level):
                continue
            if q.bet < level or self._needs_action(j):
                return j
        return None

    def _needs_action(self, j: int) -> bool:
        q = self._p[j]
        if q.folded or q.all_in:
            return False
        if q.bet < self.level:
            return True
        if q.acted:
            return False
        return any(not r.folded and not r.all_in for r in self._p if r is not q)

    # --- legal actions ---------------------------------------------------------------------------

    def bet_size(self) -> int:
        """Fixed limit: this round's bet (the small or the big bet)."""
        return self._stakes.big_bet if self._round.big_bet else self._stakes.small_bet

    def full_raise(self) -> int:
        """The smallest raise that counts as a full one: the bet size (fixed limit), else the
        minimum raise."""
        return self.bet_size() if self.limit else self.min_inc

    def act(self, i: int) -> Act:
        """Make player ``i`` the one to act and return its Act expectation (legal actions)."""
        self.to_act = i
        p = self._p[i]
        level = self.level
        owe = level - p.bet
        stack = p.stack
        if owe > 0:
            owe = matchable(self._p, i, level) - p.bet
        call = (owe if owe <= stack else stack) if owe > 0 else 0
        if self.bring_in_pending:
            bring = min(self._stakes.bring_in, p.stack)
            kinds = {ActionKind.BRING_IN}
            min_to = max_to = 0
            if p.stack > bring:
                kinds.add(ActionKind.COMPLETE)
                min_to = max_to = min(self._stakes.small_bet, p.stack + p.bet)
            return Act(p.seat, LegalActions(
                p.seat, frozenset(kinds), 0, bring,
                ActionKind.COMPLETE if ActionKind.COMPLETE in kinds else None, min_to, max_to))
        facing = owe > 0
        if not self._may_wager(i, call):
            key = (p.seat, facing, -1, call, 0, 0)
            act = ACTS.get(key)
            if act is None:
                legal = LegalActions(p.seat, _FOLD_CALL if facing else _CHECK, call)
                act = ACTS.remember(key, Act(p.seat, legal))
            return act
        allin_to = p.stack + p.bet
        if level == 0:
            code = 0
        elif self._completion and not self._wagered and level < self._stakes.small_bet:
            code = 1
        else:
            code = 2
        if self.limit:
            size = self.bet_size()
            if code == 1:
                target = self._stakes.small_bet
            elif level == 0:
                target = size
            elif self._complete_mode and self._full_level + size > level:
                target = self._full_level + size
            else:
                target = level + size
            min_to = max_to = target if target <= allin_to else allin_to
        else:
            inc = self.min_inc
            min_to = min(level + inc if level else inc, allin_to)
            max_to = allin_to
            if self._pot_limit:
                pot = sum(q.committed for q in self._p) + self.dead
                max_to = min(allin_to, level + pot + owe) if level else min(allin_to, pot)
                max_to = max(max_to, min_to)
        if self._effective_cap:
            effective = max(q.stack + q.bet for j, q in enumerate(self._p)
                            if j != i and not q.folded)
            if level < effective < min_to:
                min_to = effective
        key = (p.seat, facing, code, call, min_to, max_to)
        act = ACTS.get(key)
        if act is None:
            legal = LegalActions(p.seat, _WAGER_KINDS[facing, _BET_KINDS[code]], call, 0,
                                 _BET_KINDS[code], min_to, max_to)
            act = ACTS.remember(key, Act(p.seat, legal))
        return act

    def _may_wager(self, i: int, call: int) -> bool:
        p = self._p[i]
        if p.stack <= call:
            return False
        level = self.level
        cap = self._cap_bets
        if cap is not None and not self._cap_lifted and self._bets_count >= cap:
            return False
        if p.acted and p.acted_marker >= self._marker and not (
                self._reopen_adds_up and level - p.acted_level >= self.full_raise()):
            return False
        for q in self._p:  # noqa: SIM110 (a plain loop: this runs for every decision)
            if q.stack + q.bet > level and q is not p and not q.folded:
                return True
        return False

    # --- verify / do ------------------------------------------------------------------------------

    def verify(self, inp: ActionIn, exp: Act) -> None:
        """Raise :class:`RuleViolation` unless ``inp`` is one of ``exp``'s legal actions."""
        legal = exp.legal
        if inp.seat != exp.seat:
            raise RuleViolation(f"seat {inp.seat} acted out of turn: seat {exp.seat} is to act",
                                exp)
        if inp.kind not in legal.kinds:
            why = {
                ActionKind.CHECK: f": {legal.call_amount} to call",
                ActionKind.FOLD: ": checking is free",
                ActionKind.CALL: ": nothing to call",
            }.get(inp.kind, "")
            if inp.kind in ONE_BET and legal.bet_kind is not None:
                why = f": a wager now is a {legal.bet_kind.value}"
            elif inp.kind in ONE_BET:
                why = ": no more wagers are allowed (capped, not reopened, or nobody to bet into)"
            allowed = ", ".join(sorted(k.value for k in legal.kinds))
            raise RuleViolation(f"seat {inp.seat} may not {inp.kind.value}{why} "
                                f"(allowed: {allowed})", exp)
        if inp.kind in ONE_BET:
            amount = inp.amount
            if amount is None:
                raise RuleViolation(f"{inp.kind.value} needs a 'to' amount "
                                    f"({legal.min_to}..{legal.max_to})", exp)
            if self.limit:
                if amount not in (legal.min_to, legal.max_to):
                    allowed_to = sorted({legal.min_to, legal.max_to})
                    raise RuleViolation(
                        f"fixed limit: seat {inp.seat} may {inp.kind.value} only to "
                        f"{' or '.join(map(str, allowed_to))}, not {amount}", exp)
            elif not legal.min_to <= amount <= legal.max_to:
                raise RuleViolation(f"seat {inp.seat} may {inp.kind.value} to "
                                    f"{legal.min_to}..{legal.max_to}, not {amount}", exp)
        elif inp.amount is not None:
            expected_amount = {ActionKind.CALL: legal.call_amount,
                               ActionKind.BRING_IN: legal.bring_in_amount}.get(inp.kind, 0)
            i = self.to_act   # set by act() with the Act expected now
            assert i is not None
            if inp.amount not in (expected_amount, self._p[i].bet + expected_amount):
                raise RuleViolation(f"{inp.kind.value} amount {inp.amount} is wrong "
                                    f"(it adds {expected_amount})", exp)

    def take(self, i: int, inp: ActionIn, legal: LegalActions) -> ActionTaken:
        """Apply player ``i``'s verified action; return its event (a fold folds the player)."""
        p = self._p[i]
        kind = inp.kind
        added = 0
        if kind is ActionKind.FOLD:
            p.folded = True
        elif kind is ActionKind.CALL:
            added = p.pay(legal.call_amount)
        elif kind is ActionKind.BRING_IN:
            added = p.pay(legal.bring_in_amount)
            self.bring_in_pending = False
            if (p.all_in and self._rules.partial_bring_in is PartialBringIn.FULL_BRING_IN):
                self.level = max(self.level, self._stakes.bring_in)
            else:
                self.level = max(self.level, p.bet)
        elif kind in ONE_BET:
            assert inp.amount is not None
            before = self.level
            self.bring_in_pending = False
            added = p.pay(inp.amount - p.bet)
            self.level = max(before, p.bet)
            self._register_wager(i, before)
            self._wagered = True
        p.acted = True
        p.acted_marker = self._marker
        p.acted_level = self.level
        return ActionTaken(p.seat, kind, added, p.bet, p.all_in)

    def _register_wager(self, i: int, before: int) -> None:
        p = self._p[i]
        level = self.level
        inc = self.full_raise()
        rule = self._rules.short_all_in_reopens
        deemed = False
        if not p.all_in or (self._rules.first_raise_reopens and not self._wagered):
            full = True
        elif rule is Reopen.HALF_BET and self.limit:
            full = 2 * (level - self._full_level) >= inc
            deemed = full and level < self._full_level + inc
        else:  # FULL_BET adds up short all-ins per player, in _may_wager
            full = level - before >= inc
        if full:
            if not self.limit:
                self.min_inc = max(self.min_inc, level - before)
            # half-bet rule: the short all-in counts as the full raise it fell short of
            self._full_level = self._full_level + inc if deemed else level
            self._marker += 1
            self.last_aggressor = i
        cap = self._rules.raise_cap
        if (full or cap.short_all_in_counts) and (
                cap.completion_counts or not self._completion
                or before >= self._stakes.small_bet):
            self._bets_count += 1

    # --- closing ----------------------------------------------------------------------------------

    def close(self, events: list[HandEvent]) -> None:
        """End the round: return an uncalled bet and clear the bets."""
        players = self._p
        top = players[0]
        second = 0
        for p in players[1:]:  # the highest bet and the next highest
            if p.bet > top.bet:
                second = top.bet
                top = p
            elif p.bet > second:
                second = p.bet
        if top.bet > second:
            back = top.bet - second
            top.stack += back
            top.committed -= back
            top.bet -= back
            if top.stack:
                top.all_in = False
            events.append(BetReturned(top.seat, back))
        for p in players:
            p.bet = 0
        self.level = 0
        self.to_act = None
        self.bring_in_pending = False
