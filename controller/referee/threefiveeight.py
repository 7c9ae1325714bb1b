"""The 3-5-8 referee at a physical table.

It turns what the camera and the buttons report into a refereed game, in the engine's table mode
(hands unknown): who deals and the targets; who holds 2♣ when the preset decides the 8 by it; the
exchange instructions; the declarer's contract (cycled with short presses and confirmed with a long
press, proposed by a card of the suit shown in his zone and confirmed the same way, or entered by the
operator); "pas"; the kitty; then
each trick: whose turn, the card accepted (or rejected: out of turn, wrong zone, impossible), the
revokes the engine can prove, the winner, and a wait until the zones are cleared before the next lead;
at the end of the hand the score with the audit; then the next hand until the session ends.

Misreads: a reading the engine proves impossible (the card was already played) falls back on the
recogniser's next candidates before the player is asked; a card left unread between the two suits of its
colour is the other one when one was already played (``settle_suit_doubt``); any other unreadable card
asks the player to place it again or to pick it with the button (short press: next guess, long press:
accept). Any accepted card can be undone (long press, or the operator's ``undo``) or corrected
(``correct_card``).

Phases (``Phase``)::

    SHOW_2C ─▶ EXCHANGE ─▶ CONTRACT ─▶ KITTY ─▶ PLAY ⇄ COLLECT ─▶ (next hand) ... ─▶ GAME_OVER
               (or CONTRACT ─▶ KITTY ─▶ EXCHANGE when the preset exchanges after the contract)
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Sequence
from typing import Any

from controller.announcements import (
    Announcer,
    AskReplace,
    CardAccepted,
    CardRejected,
    ContractDeclared,
    Correction,
    ExchangeInstruction,
    GameOver,
    HandPassed,
    HandScored,
    HandStarted,
    KittyInstruction,
    Prompt,
    ShowCard,
    TrickWon,
    TurnTo,
    ViolationFound,
    WaitForClear,
)
from controller.commands import Advance, DeclareContract, EnterCard
from controller.feed.control import CorrectCard, EndGame, NextHand, Pause, Resume, Resync, Undo
from controller.journal import Journal
from controller.referee.base import Referee, choose_card, settle_suit_doubt
from controller.state import TableState
from engine.cards import Card, Rank, Suit
from engine.errors import IllegalActionError
from engine.threefiveeight.hand import Hand, Violation
from engine.threefiveeight.rules import PRESETS, AfPhase, Contract, ExchangeTiming, KittyMode, Rules, TargetsLayout
from engine.threefiveeight.session import Session
from hardware.events import Press, SeatButton
from vision.events import CardMoved, CardPlaced, CardRemoved, UnreadableCard, ZoneCleared
from vision.zones import printed_label

__all__ = ["Phase", "ThreeFiveEightReferee", "seat_zone"]

log = logging.getLogger(__name__)

#: An alternative reading replaces a possible first reading only if it is at least this confident.
STRONG_ALTERNATIVE = 0.25

TWO_OF_CLUBS = Card(Rank.TWO, Suit.CLUBS)
EXCHANGE_ZONE = "exchange"


class Phase(enum.Enum):
    SHOW_2C = "show-2c"
    EXCHANGE = "exchange"
    CONTRACT = "contract"
    KITTY = "kitty"
    PLAY = "play"
    COLLECT = "collect"
    GAME_OVER = "game-over"


def seat_zone(seat: int) -> str:
    """The mat zone where ``seat`` plays its cards."""
    return f"seat{seat}"


class ThreeFiveEightReferee(Referee):
    """One 3-5-8 game (a session of hands) at a table."""

    game = "358"

    def __init__(
        self,
        players: Sequence[str],
        preset: str | Rules = "sergeant-major",
        announcer: Announcer | None = None,
        journal: Journal | None = None,
        *,
        hands: int | None = None,
    ) -> None:
        super().__init__(players, announcer, journal)
        if len(self.players) != 3:
            raise ValueError(f"3-5-8 is for 3 players, not {len(self.players)}")
        if isinstance(preset, Rules):
            self.rules = preset
        else:
            if preset not in PRESETS:
                raise ValueError(f"unknown 3-5-8 preset {preset!r} (one of {', '.join(PRESETS)})")
            self.rules = PRESETS[preset]
        self.preset = self.rules.name
        self.max_hands = hands
        self.session = Session(self.rules, players=self.players, strict=False)
        self.hand: Hand | None = None
        self.phase = Phase.SHOW_2C
        self.hand_index = -1
        self.felt: dict[str, list[Card]] = {seat_zone(s): [] for s in range(3)}
        self.named: dict[str, Card] = {}
        """Per seat zone, the card taken for one the table could not read (settled by the cards played, picked
        with the button or entered) until the zone is cleared: the camera often reads that card a moment later,
        and that reading (``CardPlaced.answers_ask``) is the card already played, not a second one."""
        self.lifted: dict[str, Card] = {}
        """Per seat zone, the card of the trick on the felt that its player picked up (``CardRemoved``) before the
        trick was collected: laid there again, it is that card laid again (straightened, or put back nearer its
        zone's middle), not a second card from that seat (which is rejected as one)."""
        self.collect: set[str] = set()
        self.choice = -1
        self.exchange_waiting: set[int] = set()
        self.exchange_give: tuple[int, int, Card] | None = None  # a given card seen, awaiting the return
        self.kitty_then_exchange = False  # online-18: the kitty comes before the exchange
        self.last_trick_winner: int | None = None
        self.trick_winners: dict[tuple[int, int], int] = {}
        self.game_over = False
        self.message = ""
        self.handlers = {
            CardPlaced: self._on_placed,
            CardRemoved: self._on_removed,
            CardMoved: self._on_moved,
            ZoneCleared: self._on_cleared,
            UnreadableCard: self._on_unreadable,
            SeatButton: self._on_button,
            Undo: lambda _c: self._undo(),
            CorrectCard: self._on_correct,
            EnterCard: self._on_enter,
            DeclareContract: lambda c: self._declare(c.contract),
            Advance: lambda _c: self._advance(),
            NextHand: lambda _c: self._next_hand_command(),
            EndGame: lambda _c: self._end_game("ended by the operator"),
            Pause: lambda _c: setattr(self, "paused", True),
            Resume: lambda _c: setattr(self, "paused", False),
            Resync: lambda _c: None,
        }

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Begin the first hand (after :meth:`resume` when there was a journal, if it has not begun)."""
        if self.hand is None and not self.game_over:
            self._new_hand()

    @property
    def is_over(self) -> bool:
        return self.game_over

    def _new_hand(self, eight: int | None = None) -> None:
        first_by_2c = self.rules.targets_layout is TargetsLayout.BY_2C_THEN_ROTATE and not self.session.hands
        if first_by_2c and eight is None:
            self.hand = None
            self.phase = Phase.SHOW_2C
            self.say(ShowCard(TWO_OF_CLUBS))
            return
        hand = self.session.new_hand(declarer=eight)
        self.hand = hand
        self.exchange_give = None
        self.choice = -1  # no contract proposed yet (a long press during the exchange confirms only one)
        self.hand_index += 1
        self.trick_winners = {k: v for k, v in self.trick_winners.items() if k[0] != self.hand_index}
        self.say(
            HandStarted(
                hand=self.hand_index,
                dealer=hand.dealer if hand.dealer is not None else hand.eight,
                targets=tuple(hand.targets),
                af=self._af(hand),
                preset=self.preset,
            )
        )
        if self.rules.exchange_timing is ExchangeTiming.BEFORE_CONTRACT and hand.effective_exchange_due:
            self._open_exchange()
        else:
            self._open_contract()

    def _af(self, hand: Hand) -> bool:
        period = self.rules.af_period
        if period <= 0:
            return False
        if self.rules.af_phase is AfPhase.AFTER_ROUND:
            return hand.number > 1 and (hand.number - 1) % period == 0
        return hand.number % period == 0

    def _open_exchange(self) -> None:
        assert self.hand is not None
        self.phase = Phase.EXCHANGE
        no_trumps = self.rules.trump_exchange_rule.value == "trump-not-givable"
        for due in self.hand.effective_exchange_due:
            self.say(ExchangeInstruction(due.giver, due.receiver, due.count, no_trumps=no_trumps))
        self.exchange_waiting = {d.receiver for d in self.hand.effective_exchange_due}
        self.say(Prompt(None, "press your button when the exchange is done"))

    def _exchange_card(self, card: Card) -> None:
        """Optional verification: cards shown in the exchange zone, each given card then what came back.

        The k-th pair belongs to the k-th card due (in the order of the instructions); the engine checks the
        return rule as far as it can (same suit and higher, or the card itself). A receiver who has no
        higher card presses his button instead of showing the same card again.
        """
        hand = self.hand
        assert hand is not None
        order = [(d.giver, d.receiver) for d in hand.effective_exchange_due for _ in range(d.count)]
        done = len(hand.exchange)
        if done >= len(order):
            self.say(Prompt(None, f"{card} shown, but every card due in the exchange was already seen"))
            return
        giver, receiver = order[done]
        if self.exchange_give is None:
            self.exchange_give = (giver, receiver, card)
            self.say(
                Prompt(
                    receiver,
                    f"{self.players[giver]} gives {card}: show what you return "
                    "(press your button if you have no higher card)",
                )
            )
            return
        _g, _r, give = self.exchange_give
        self.exchange_give = None
        try:
            found = hand.give(giver, receiver, give, card)
        except IllegalActionError as exc:
            self.say(Prompt(None, f"exchange not recorded: {exc}"))
            return
        for v in found:
            self._say_violation(v)
        if not found:
            self.say(
                Prompt(
                    None, f"exchange seen: {self.players[giver]} gave {give}, {self.players[receiver]} returned {card}"
                )
            )

    def _contract_options(self) -> list[str]:
        assert self.hand is not None
        allowed = self.hand.contracts_left if self.hand.contracts_left is not None else self.rules.contracts
        order = ["S", "H", "D", "C", "NT", "MISERE"]
        options = [c for c in order if Contract(c) in allowed]
        if self.rules.pass_redeal:
            options.append("PASS")
        return options

    def _open_contract(self) -> None:
        assert self.hand is not None
        self.phase = Phase.CONTRACT
        self.choice = -1
        options = " ".join(self._contract_options())
        self.say(Prompt(self.hand.eight, f"name the contract ({options}): short press to choose, long to confirm"))

    def _open_kitty(self) -> None:
        assert self.hand is not None
        self.phase = Phase.KITTY
        self.say(KittyInstruction(self.hand.eight, self.rules.kitty_mode is KittyMode.BLIND_SWAP))

    def _open_play(self) -> None:
        assert self.hand is not None
        self.phase = Phase.PLAY
        self.say(TurnTo(self.hand.to_move, seat_zone(self.hand.to_move), self.hand.trick_number - 1))

    # ------------------------------------------------------------------ contract and phases

    def _declare(self, text: str) -> None:
        hand = self.hand
        if hand is None or self.phase not in (Phase.EXCHANGE, Phase.CONTRACT):
            self.say(Prompt(None, f"not the time to name a contract ({self.phase.value})"))
            return
        try:
            contract = Contract.from_text(text.upper())
            hand.set_contract(contract)
        except (ValueError, IllegalActionError) as exc:
            self.say(Prompt(hand.eight, f"contract {text!r} refused: {exc}"))
            return
        if contract is Contract.PASS:
            self.say(HandPassed(hand.eight))
            self._finish_hand()
            return
        self.say(ContractDeclared(hand.eight, contract.value))
        if self.rules.exchange_timing is ExchangeTiming.AFTER_CONTRACT and hand.effective_exchange_due:
            if self.rules.kitty_mode is KittyMode.PICKUP_THEN_DISCARD:
                self._open_kitty()
                self.kitty_then_exchange = True
                return
            self._open_exchange()
            return
        self._open_kitty()

    def _advance(self) -> None:
        """The exchange or the kitty is done (operator, or every button needed was pressed)."""
        if self.phase is Phase.EXCHANGE:
            self.exchange_waiting = set()
            assert self.hand is not None
            if self.hand.contract is None:
                self._open_contract()
            else:
                self._open_play()
        elif self.phase is Phase.KITTY:
            if self.kitty_then_exchange:
                self.kitty_then_exchange = False
                self._open_exchange()
            else:
                self._open_play()

    # ------------------------------------------------------------------ vision events

    def _seat_of(self, zone: str) -> int | None:
        for s in range(3):
            if seat_zone(s) == zone:
                return s
        return None

    def _on_placed(self, ev: CardPlaced) -> None:
        if ev.answers_ask and ev.zone in self.named:
            log.info("%s: %s read, the card %s taken for it already", ev.zone, ev.card, self.named.pop(ev.zone))
            return
        if self.lifted.get(ev.zone) == ev.card:
            # its player picked it up and laid it again: played already (before, "already played to this trick"
            # or "wait until the trick is collected" was announced for a card only straightened)
            log.info("%s: %s laid again", ev.zone, self.lifted.pop(ev.zone))
            self.felt.setdefault(ev.zone, []).append(ev.card)
            return
        seat = self._seat_of(ev.zone)
        if seat is not None and ev.card in self.felt.get(ev.zone, ()) and self._in_trick_on_felt(seat, ev.card):
            # read again where it lies, played to the trick on the felt: a card the tracker never had (named with
            # the button, or entered) and its player straightened reports no removal, so ``lifted`` misses it; with
            # one deck it can be no other card ("wait until the trick is collected" was announced for it)
            log.info("%s: %s read again where it lies", ev.zone, ev.card)
            return
        self.felt.setdefault(ev.zone, []).append(ev.card)
        self.unreadable.pop(ev.zone, None)
        if self.paused:
            return
        if ev.zone == EXCHANGE_ZONE:
            self.felt[ev.zone] = []  # shown, then taken back: nothing to collect
            if self.phase is Phase.EXCHANGE:
                self._exchange_card(ev.card)
            return
        if self.phase is Phase.SHOW_2C:
            # The holder of 2♣ shows it (or, when 2♣ is in the kitty, the holder of the lowest club).
            if seat is not None and ev.card.suit is Suit.CLUBS:
                self.felt[ev.zone].remove(ev.card)
                self._new_hand(eight=seat)
            else:
                self._reject(ev.zone, ev.card, seat, "show 2♣ (or your lowest club) to decide the 8")
            return
        if (
            self.phase in (Phase.EXCHANGE, Phase.CONTRACT)
            and self.hand is not None
            and self.hand.contract is None
            and seat == self.hand.eight
        ):
            # A card shown by the declarer proposes the contract by its suit. Proposed, not declared:
            # the suit is what the camera misreads most (clubs for spades), and a contract cannot be
            # taken back once declared (the declarer sees the kitty next). He hears the suit read and
            # confirms it with the long press; in the contract phase short presses move on to the next
            # contract, during the exchange they still say "exchange done".
            self.felt[ev.zone].remove(ev.card)
            options = self._contract_options()
            if ev.card.suit.value not in options:
                self._reject(ev.zone, ev.card, seat, "that suit is not a contract now")
                return
            self.choice = options.index(ev.card.suit.value)
            more = ", short press for another" if self.phase is Phase.CONTRACT else ""
            self.say(Prompt(seat, f"contract {ev.card.suit.noun}? long press to confirm{more}"))
            return
        if self.phase is Phase.KITTY and not self.kitty_then_exchange:
            self._open_play()
        if self.phase is Phase.GAME_OVER:
            self._reject(ev.zone, ev.card, seat, "the game is over")
            return
        if self.phase is Phase.COLLECT:
            self._reject(ev.zone, ev.card, seat, "wait until the trick is collected")
            return
        if self.phase is not Phase.PLAY:
            self._reject(ev.zone, ev.card, seat, f"not the time to play ({self.phase.value})")
            return
        self._play_from_zone(ev.zone, seat, ev.card, ev.candidates, ev.still_t)

    def _play_from_zone(
        self, zone: str, seat: int | None, first: Card, candidates: Sequence[tuple[Card, float]], still_t: float
    ) -> None:
        hand = self.hand
        assert hand is not None
        if seat is None:
            mover, own = self.players[hand.to_move], printed_label(seat_zone(hand.to_move))
            self._reject(zone, first, None, f"wrong zone: play into your own zone ({mover}'s is {own})")
            return
        if seat != hand.to_move:
            if seat in hand.current_trick.seats:
                why = f"wrong zone: {self.players[seat]} already played to this trick"
            else:
                why = f"out of turn: it is {self.players[hand.to_move]}'s turn"
            self._reject(zone, first, seat, why)
            return
        played = {c for _s, c in hand.plays}

        def possible(card: Card) -> bool:
            return card.copy == 0 and card not in played

        def clean(card: Card) -> bool:
            return hand.is_possible(seat, card)

        strong = [(c, p) for c, p in candidates if p >= STRONG_ALTERNATIVE or not possible(first)]
        card, corrected = choose_card(first, strong, possible, clean)
        if card is None:
            self._ask_guesses(zone, [c for c, _p in candidates if possible(c)])
            self.say(CardRejected(zone, first, f"{first} was already played in this hand", seat))
            self.say(AskReplace(zone, seat))
            return
        if corrected is not None:
            self.felt[zone] = [card if c == corrected else c for c in self.felt[zone]]
        self._accept(seat, card, corrected, still_t)

    def _reject(self, zone: str, card: Card | None, seat: int | None, why: str) -> None:
        self.say(CardRejected(zone, card, why, seat))

    def _accept(self, seat: int, card: Card, corrected: Card | None, still_t: float) -> None:
        hand = self.hand
        assert hand is not None
        trick = hand.trick_number - 1
        result = hand.play(seat, card)
        self.say(CardAccepted(seat, card, trick, corrected_from=corrected, still_t=still_t))
        for v in result.violations:
            self._say_violation(v)
        if result.trick is not None:
            t = result.trick
            assert t.winner is not None
            self.last_trick_winner = t.winner
            self.trick_winners[(self.hand_index, t.number - 1)] = t.winner
            cards = tuple(zip(t.seats, t.cards, strict=True))
            self.say(TrickWon(t.number - 1, t.winner, cards, tricks_taken=tuple(hand.taken)))
            self.phase = Phase.COLLECT
            self.collect = {seat_zone(s) for s in t.seats}
            if result.hand_complete:
                self._score_hand()
            self.say(WaitForClear(t.winner))
            self._check_collected()
        else:
            self.say(TurnTo(hand.to_move, seat_zone(hand.to_move), trick))

    def _say_violation(self, v: Violation) -> None:
        self.say(ViolationFound(v.rule, v.seat, v.trick, v.reason, proven_at=v.proven_at, hand=self.hand_index))

    def _on_removed(self, ev: CardRemoved) -> None:
        self.named.pop(ev.zone, None)
        cards = self.felt.get(ev.zone, [])
        if ev.card in cards:
            cards.remove(ev.card)
        elif cards:
            cards.pop(0)
        seat = self._seat_of(ev.zone)
        if seat is not None and self._in_trick_on_felt(seat, ev.card):
            self.lifted[ev.zone] = ev.card
        self._check_collected()

    def _in_trick_on_felt(self, seat: int, card: Card) -> bool:
        """Whether ``seat`` played ``card`` to the trick on the felt (in progress, or full and not yet collected)."""
        hand = self.hand
        if hand is None:
            return False
        if self.phase is Phase.PLAY:
            trick = hand.current_trick
        elif self.phase is Phase.COLLECT and hand.tricks:
            trick = hand.tricks[-1]
        else:
            return False
        return any(s == seat and c == card for s, c in zip(trick.seats, trick.cards, strict=True))

    def _on_cleared(self, ev: ZoneCleared) -> None:
        seat = self._seat_of(ev.zone)
        for card in self.felt.get(ev.zone, []):
            if seat is not None and self._in_trick_on_felt(seat, card):
                # picked up, with no removal reported first (a card the tracker never had: named with the button or
                # entered): laid again before the trick is collected, it is that card (see ``_on_removed``)
                self.lifted[ev.zone] = card
        self.felt[ev.zone] = []
        self.named.pop(ev.zone, None)
        self.unreadable.pop(ev.zone, None)
        self._check_collected()

    def _on_moved(self, ev: CardMoved) -> None:
        src = self.felt.get(ev.from_zone, [])
        if ev.card in src:
            src.remove(ev.card)
        self._check_collected()
        if self.phase is Phase.PLAY and self.hand is not None:
            # A rejected card slid into the right zone is a play now.
            seat = self._seat_of(ev.to_zone)
            if seat == self.hand.to_move:
                self.felt.setdefault(ev.to_zone, []).append(ev.card)
                self._play_from_zone(ev.to_zone, seat, ev.card, (), ev.t)
                return
        self.felt.setdefault(ev.to_zone, []).append(ev.card)

    def _check_collected(self) -> None:
        if self.phase is not Phase.COLLECT:
            return
        if any(self.felt.get(z) for z in self.collect):
            return
        self.collect = set()
        self.lifted = {}
        hand = self.hand
        assert hand is not None
        if self.game_over:
            self.phase = Phase.GAME_OVER
            return
        if hand.is_complete:
            self._finish_hand()
        else:
            self._open_play()

    def _on_unreadable(self, ev: UnreadableCard) -> None:
        if self.paused or self.phase is not Phase.PLAY or self.hand is None:
            return
        seat = self._seat_of(ev.zone)
        if seat != self.hand.to_move:
            return
        hand = self.hand
        played = {c for _s, c in hand.plays}
        settled = settle_suit_doubt(
            ev.best_guesses, lambda c: c.copy == 0 and c not in played, lambda c: hand.is_possible(seat, c)
        )
        if settled is not None:  # 7H or 7D, and 7D was played: it is 7H
            log.info("%s: %s read, its suit in doubt; the other suit of its rank was played", ev.zone, settled)
            self._play_named(ev.zone, seat, settled, ev.t)
            return
        self._ask_guesses(ev.zone, [c for c, _p in ev.best_guesses if c not in played])
        self.say(AskReplace(ev.zone, seat))

    # ------------------------------------------------------------------ buttons and corrections

    def _on_button(self, press: SeatButton) -> None:
        hand = self.hand
        seat = press.seat
        if seat is None:  # the operator's button: short = next, long = undo
            if press.press is Press.LONG:
                self._undo()
            else:
                self._advance()
            return
        if hand is None:
            return
        if self.phase is Phase.EXCHANGE:
            if press.press is Press.LONG and seat == hand.eight and hand.contract is None and self.choice >= 0:
                self._declare(self._contract_options()[self.choice])  # the contract proposed by a shown card
                return
            if press.press is Press.SHORT and self.exchange_give is not None and seat == self.exchange_give[1]:
                self._exchange_card(self.exchange_give[2])  # he had no higher card: the card itself goes back
                return
            if press.press is Press.SHORT:
                self.exchange_waiting.discard(seat)
                if not self.exchange_waiting:
                    self._advance()
            return
        if self.phase is Phase.CONTRACT and seat == hand.eight:
            options = self._contract_options()
            if press.press is Press.SHORT:
                self.choice = (self.choice + 1) % len(options)
                label = Contract(options[self.choice]).noun if options[self.choice] != "PASS" else "pass"
                self.say(Prompt(seat, f"contract {label}? long press to confirm"))
            elif self.choice >= 0:
                self._declare(options[self.choice])
            return
        if self.phase is Phase.KITTY and seat == hand.eight and press.press is Press.SHORT:
            self._advance()
            return
        zone = seat_zone(seat)
        if self.phase is Phase.PLAY and zone in self.unreadable and seat == hand.to_move:
            card = self._pick_guess(zone, seat, press.press)
            if card is not None:
                self._play_named(zone, seat, card, 0.0)
            return
        if press.press is Press.LONG and self.phase in (Phase.PLAY, Phase.COLLECT):
            self._undo()

    def _undo(self) -> None:
        hand = self.hand
        if hand is None or not hand.plays or (hand.is_complete and self.phase is not Phase.COLLECT):
            self.say(Prompt(None, "nothing to undo"))
            return
        seat, card = hand.undo()
        self.named.pop(seat_zone(seat), None)  # taken back: a later reading of that zone is a card to play
        self.trick_winners.pop((self.hand_index, hand.trick_number - 1), None)
        self.collect = set()
        self.phase = Phase.PLAY
        self.say(Correction(seat, card, None, "undo"))
        self.say(TurnTo(hand.to_move, seat_zone(hand.to_move), hand.trick_number - 1))

    def _on_enter(self, cmd: EnterCard) -> None:
        if self.phase is Phase.KITTY:
            self._open_play()
        if self.phase is not Phase.PLAY or self.hand is None:
            self.say(Prompt(None, f"cannot enter a card now ({self.phase.value})"))
            return
        zone = seat_zone(cmd.seat)
        self.unreadable.pop(zone, None)
        self._play_named(zone, cmd.seat, cmd.card, 0.0)

    def _play_named(self, zone: str, seat: int, card: Card, t: float) -> None:
        """Play ``card`` in ``zone``, taken for the card there the table could not read (see ``named``)."""
        self.felt.setdefault(zone, []).append(card)
        self.named[zone] = card
        self._play_from_zone(zone, seat, card, (), t)

    def _on_correct(self, cmd: CorrectCard) -> None:
        """The operator says ``seat``'s card (in trick ``trick``, default its latest) was ``card``."""
        hand = self.hand
        if hand is None or cmd.card is None:
            return
        plays = hand.plays
        idx = None
        for i in range(len(plays) - 1, -1, -1):
            if plays[i][0] == cmd.seat and (cmd.trick is None or i // 3 + 1 == cmd.trick):
                idx = i
                break
        if idx is None:
            self.say(Prompt(None, f"no card of {self.players[cmd.seat]} to correct"))
            return
        redo: list[tuple[int, Card]] = []
        while len(hand.plays) > idx:
            redo.append(hand.undo())
        redo.reverse()
        old = redo[0][1]
        redo[0] = (cmd.seat, cmd.card)
        done = None
        for seat, card in redo:
            try:
                result = hand.play(seat, card)
            except IllegalActionError as exc:
                self.say(Prompt(None, f"correction refused: {exc}"))
                break
            done = result
        self.say(Correction(cmd.seat, old, cmd.card, "corrected by the operator"))
        for v in hand.violations:
            if v.card == cmd.card and v.seat == cmd.seat:
                self._say_violation(v)
        trick_no = idx // 3
        for t in hand.tricks[trick_no:]:
            assert t.winner is not None
            if self.trick_winners.get((self.hand_index, t.number - 1)) != t.winner:
                self.trick_winners[(self.hand_index, t.number - 1)] = t.winner
                self.say(
                    TrickWon(
                        t.number - 1,
                        t.winner,
                        tuple(zip(t.seats, t.cards, strict=True)),
                        tricks_taken=tuple(hand.taken),
                    )
                )
        if hand.tricks:
            self.last_trick_winner = hand.tricks[-1].winner
        if done is not None and done.hand_complete:
            self._score_hand()

    # ------------------------------------------------------------------ hand end and session

    def _score_hand(self) -> None:
        hand = self.hand
        assert hand is not None
        score = hand.score()
        if score is None:
            return
        totals = tuple(self.session.totals)
        self.say(
            HandScored(
                self.hand_index,
                tuple(hand.taken),
                tuple(hand.targets),
                tuple(score),
                totals,
                audit=tuple(v.reason for v in hand.violations),
            )
        )

    def _finish_hand(self) -> None:
        hand = self.hand
        assert hand is not None
        if self.session.is_over:
            self._end_game("")
            return
        if self.max_hands is not None and self.hand_index + 1 >= self.max_hands:
            self._end_game(f"{self.max_hands} of {self.max_hands} hand{'s' if self.max_hands != 1 else ''} played")
            return
        self._new_hand()

    def _next_hand_command(self) -> None:
        if self.hand is not None and self.hand.is_complete and self.phase is Phase.COLLECT:
            self.collect = set()
            self.felt = {z: [] for z in self.felt}
            self.named = {}
            self.lifted = {}
            self.phase = Phase.PLAY
            self._finish_hand()
        else:
            self.say(Prompt(None, "the hand is not over yet"))

    def _end_game(self, reason: str) -> None:
        self.game_over = True
        self.phase = Phase.GAME_OVER
        outcome = self.session.outcome()
        totals = self.session.totals
        if outcome.winner is not None:
            winners: tuple[int, ...] = (outcome.winner,)
        else:
            eligible = [s for s in range(3) if s not in outcome.disqualified]
            top = max((totals[s] for s in eligible), default=0)
            winners = tuple(s for s in eligible if totals[s] == top)
        why = reason or {"twelve-tricks": "twelve tricks in one hand", "complete": "all hands played"}.get(
            outcome.ended_by or "", "game stopped"
        )
        self.say(GameOver(winners, tuple(totals), why))

    # ------------------------------------------------------------------ views

    def lying(self) -> dict[str, tuple[Card, ...]]:
        return {zone: tuple(cards) for zone, cards in self.felt.items() if cards}

    def state(self) -> TableState:
        hand = self.hand
        if hand is None:
            return TableState(
                self.game,
                self.preset,
                self.players,
                phase=self.phase.value,
                hand=max(self.hand_index, 0),
                hands_total=self.rules.game_length,
                totals=tuple(self.session.totals),
                game_over=self.game_over,
            )
        trick = hand.current_trick
        turn = hand.to_move if self.phase is Phase.PLAY else None
        return TableState(
            self.game,
            self.preset,
            self.players,
            phase=self.phase.value,
            hand=self.hand_index,
            hands_total=self.max_hands or self.rules.game_length,
            dealer=hand.dealer,
            declarer=hand.eight,
            targets=tuple(hand.targets),
            contract=hand.contract.value if hand.contract is not None else "",
            turn=turn,
            trick=hand.trick_number - 1,
            current_trick=tuple(zip(trick.seats, trick.cards, strict=True)),
            tricks_taken=tuple(hand.taken),
            totals=tuple(self.session.totals),
            last_trick_winner=self.last_trick_winner,
            hand_over=hand.is_complete,
            game_over=self.game_over,
            violations=tuple(v.reason for v in hand.violations),
        )

    def record(self) -> dict[str, Any]:
        return dict(self.session.to_record())
