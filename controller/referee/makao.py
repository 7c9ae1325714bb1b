"""The Makao referee at a physical table (engine table mode: hands unknown).

The camera sees cards land on the pile; the buttons say the rest. The first card seen on the pile is
the starter. Each card that lands afterwards belongs to the player to move; several cards of one rank
laid in a row are one play. A short press by that player ends the play ("done"); for a jack or an ace
the first short press opens the demand choice (next short presses cycle: no demand, then the ranks or
suits; a long press confirms). A short press with nothing laid means: draw (or accept the pending
penalty or skip, or pass after a draw). A long press takes back the player's last action, and before
the first play the starter: the table says which card it read as the starter, and every later card is
judged against it, so a misread starter must be put right before anyone plays.

The engine checks every play and keeps the cards each player holds; the referee announces whose turn
it is, each card accepted, the proven violations, the pending penalty, skips and demands, who is out
and who lost. As in 3-5-8, a reading the rules prove impossible (a card already lying on the pile)
falls back on the recogniser's next candidates; a card the table cannot read is settled when the other
suit of its rank lies on the pile, else its player picks it from the guesses with his button or places
it again; and a misread card taken back reopens the play it had closed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Final

from controller.announcements import (
    Announcer,
    AskReplace,
    CardAccepted,
    CardRejected,
    Correction,
    Demand,
    DrawCards,
    GameOver,
    HandStarted,
    PenaltyPending,
    PlayerOut,
    Prompt,
    Skip,
    StockRenewed,
    TurnTo,
    ViolationFound,
)
from controller.commands import EnterCard
from controller.feed.control import EndGame, Pause, Resume, Resync, Undo
from controller.journal import Journal
from controller.referee.base import Referee, choose_card, settle_suit_doubt
from controller.state import TableState
from engine.cards import Card, Rank, Suit
from engine.makao.actions import Accept, Action, Draw, Pass, Play, demand_text
from engine.makao.game import MakaoGame
from engine.makao.game import Phase as MakaoPhase
from engine.makao.records import record_of
from engine.makao.rules import PRESETS, MakaoRules
from hardware.events import Press, SeatButton
from vision.events import CardMoved, CardPlaced, CardRemoved, UnreadableCard, ZoneCleared

__all__ = ["PILE", "MakaoReferee", "demand_options"]

log = logging.getLogger(__name__)

PILE = "pile"


def demand_options(rules: MakaoRules, card: Card) -> list[Rank | Suit | None]:
    """What a jack (ranks) or an ace (suits) may demand, "no demand" first."""
    if card.rank is Rank.JACK:
        return [None, *rules.jack_demand_ranks]
    if card.rank is Rank.ACE:
        return [None, Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS]
    return []


def _named(demand: Rank | Suit) -> str:
    """A demand as the player is asked about it: a suit by name ("hearts"), a rank by its code ("6")."""
    return demand.noun if isinstance(demand, Suit) else demand_text(demand)


ENDED: Final = {
    "last-holder": "the last player holding cards loses",
    "third-out": "the game ends when a third player is out; those still holding cards lose",
}
"""How a Makao game ended (:attr:`engine.makao.game.Outcome.ended_by`), in words for the game-over sentence."""


class MakaoReferee(Referee):
    """One game of Makao at a table."""

    game = "makao"

    def __init__(
        self,
        players: Sequence[str],
        preset: str | MakaoRules = "makao",
        announcer: Announcer | None = None,
        journal: Journal | None = None,
    ) -> None:
        super().__init__(players, announcer, journal)
        if isinstance(preset, MakaoRules):
            self.rules = preset
        else:
            if preset not in PRESETS:
                raise ValueError(f"unknown Makao preset {preset!r} (one of {', '.join(PRESETS)})")
            self.rules = PRESETS[preset]
        if not self.rules.min_players <= len(self.players) <= self.rules.max_players:
            raise ValueError(f"Makao is for {self.rules.min_players} to {self.rules.max_players} players")
        self.preset = self.rules.name
        self.decks = self.rules.decks_for(len(self.players))
        self.mgame: MakaoGame | None = None
        self.turns: list[tuple[int, Action]] = []
        self.pending: list[Card] = []
        self.pending_seat: int | None = None
        self.choosing: int | None = None  # index into demand_options while the player chooses
        self.reopen: tuple[int, tuple[Card, ...]] | None = None
        """A play that a card of another rank closed without its player's press (``_lay``), kept while
        nothing else happened since: taking that card back opens the play again, so a misread second
        card ("Cem plays 9S" for Ben's second six) does not leave Ben's play closed without it."""
        self.named: Card | None = None
        """The card its player (with the button) or the operator named for one the table could not read, while
        it is the last card laid. The camera often reads it a moment later, when the player's hand is gone:
        that reading is the card already named, not another laid on it (:meth:`_on_placed`). Anything laid or
        taken back since forgets it. When the player says that no card was laid where the table asked
        (:meth:`_no_card_laid`), the card on top is named so."""
        self.renewed: int | None = None
        """How many turns stood when the stock was last renewed and the draw that renewed it was taken back: the
        pile's cards went into the shuffled stock at the table and stay there (:meth:`_undo`), so no turn before
        it can be taken back."""
        self.started = False
        self.over = False
        self.handlers = {
            CardPlaced: self._on_placed,
            CardRemoved: lambda _e: None,
            CardMoved: lambda _e: None,
            ZoneCleared: lambda _e: None,
            UnreadableCard: self._on_unreadable,
            SeatButton: self._on_button,
            EnterCard: self._on_enter,
            Undo: lambda _c: self._undo(),
            EndGame: lambda _c: self._end("ended by the operator"),
            Pause: lambda _c: setattr(self, "paused", True),
            Resume: lambda _c: setattr(self, "paused", False),
            Resync: lambda _c: None,
        }

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        if self.started:
            return
        self.started = True
        self.say(Prompt(None, "deal 5 cards each and turn the starter card face up on the pile"))

    @property
    def is_over(self) -> bool:
        return self.over

    def _begin(self, starter: Card) -> None:
        self.mgame = MakaoGame.table(self.rules, self.players, [starter])
        self.say(HandStarted(hand=0, dealer=0, preset=self.preset))
        # Every later card is judged against the starter, so the table says what it read: a misread
        # starter is taken back with a long press before the first play (see _undo).
        self.say(Prompt(None, f"starter {starter}; a long press takes it back if that is not the card"))
        self._announce_turn()

    # ------------------------------------------------------------------ inputs

    def _on_placed(self, ev: CardPlaced) -> None:
        self.unreadable.pop(ev.zone, None)
        if self.paused:
            return
        if ev.zone != PILE:
            self.say(CardRejected(ev.zone, ev.card, "wrong zone: play onto the pile"))
            return
        if self.mgame is None:
            self._begin(ev.card)
            return
        if self.named is not None and (
            ev.answers_ask or (ev.card.same_face(self.named) and not self._possible()(ev.card))
        ):
            # the card just named, read at last: the tracker says nothing was put down since it asked, or every
            # copy of the card read lies on the pile already. Taken for a new card it would be laid again, or
            # fall back on its second candidate and lay a card nobody played.
            log.info("pile: %s read, the card %s named for it a moment ago", ev.card, self.named)
            return
        self._lay(ev.card, ev.candidates, ev.still_t)

    def _lay_named(self, card: Card, still_t: float = 0.0) -> None:
        """Lay ``card`` as named for an unreadable one (a guess picked, entered, or settled by its other suit lying
        on the pile), and remember it: the camera's reading of it at last is that card (``_on_placed``)."""
        self._lay(card, (), still_t)
        if self.pending and self.pending[-1].same_face(card):
            self.named = card

    def _lay(self, first: Card, candidates: Sequence[tuple[Card, float]], still_t: float) -> None:
        game = self.mgame
        assert game is not None
        self.named = None  # another card on top: what was named lies beneath it
        if game.is_over:
            self.say(CardRejected(PILE, first, "the game is over"))
            return
        self.unreadable.pop(PILE, None)  # whatever was asked about is answered by this card
        card, corrected = choose_card(first, candidates, self._possible())
        if card is None:
            self.say(CardRejected(PILE, first, f"{first} is already on the pile"))
            self.say(AskReplace(PILE, self._laying_seat()))
            return
        if self.pending and (self.choosing is not None or card.rank != self.pending[0].rank):
            # A card of another rank (or one laid while a demand is being chosen) ends the open play: it
            # is the next player's. Kept so that taking this card back opens the play again.
            closed = (self.pending_seat, tuple(self.pending))
            self._commit(None)
            if closed[0] is not None:
                self.reopen = (closed[0], closed[1])
        seat = game.to_move
        assert seat is not None
        if not self.pending:
            self.pending_seat = seat
        self.pending.append(card)
        self.say(CardAccepted(self.pending_seat or 0, card, game.turn_count, corrected_from=corrected, still_t=still_t))
        if len(self.pending) == 1:
            self.say(Prompt(self.pending_seat, "press your button when your play is done", reminder=True))

    def _possible(self) -> Callable[[Card], bool]:
        """Whether a card can be the one just laid: not while all its copies lie on the pile already."""
        game = self.mgame
        assert game is not None
        on_pile = [*game.pile, *self.pending]
        return lambda card: sum(1 for c in on_pile if c.same_face(card)) < self.decks

    def _laying_seat(self) -> int | None:
        """Who the card being laid on the pile belongs to: the player whose play is still open, else the
        player to move."""
        return self.pending_seat if self.pending else (self.mgame.to_move if self.mgame is not None else None)

    def _on_unreadable(self, ev: UnreadableCard) -> None:
        if ev.zone != PILE or self.paused:
            return
        game = self.mgame
        if game is None:
            # The starter, turned up by the dealer: asked about too, or the first card played would be
            # taken for it. It is placed again (or entered by the operator).
            self.say(AskReplace(PILE, None))
            return
        if game.is_over:
            return
        possible = self._possible()
        settled = settle_suit_doubt(ev.best_guesses, possible)
        if settled is not None:  # 7H or 7D, and 7D lies on the pile: it is 7H
            log.info("pile: %s read, its suit in doubt; the other suit of its rank is on the pile", settled)
            # named, as a guess picked: straightened and read at last it is this card, not a second one (tango_nuevo,
            # Makao for four with --retake: a QD so settled, read QD laid again, fell back on a JD nobody played)
            self._lay_named(settled, ev.t)
            return
        # A deck the models read poorly (a bare rank in the corner) would otherwise be placed again and
        # again until the operator enters it: the player picks it from the guesses with his button.
        self._ask_guesses(PILE, [c for c, _p in ev.best_guesses if possible(c)])
        self.say(AskReplace(PILE, self._laying_seat()))

    def _no_card_laid(self, zone: str) -> None:
        """What the table asked about is the card on top, as far as anyone laid it: named for the ask (see
        ``named``), so that the camera's reading of it at last is not laid as a new card."""
        if self.pending:
            self.named = self.pending[-1]
        elif self.mgame is not None:
            self.named = self.mgame.top

    def _on_enter(self, cmd: EnterCard) -> None:
        if self.mgame is None:
            self._begin(cmd.card)
            return
        self._lay_named(cmd.card)

    def _on_button(self, press: SeatButton) -> None:
        game = self.mgame
        if game is None or self.paused:
            return
        seat = press.seat
        if seat is None:
            if press.press is Press.LONG:
                self._undo()
            return
        laying = self._laying_seat()
        if PILE in self.unreadable and seat == laying:
            card = self._pick_guess(PILE, seat, press.press)
            if card is not None:
                self._lay_named(card)
            return
        if PILE in self.unreadable and self.pending and press.press is Press.SHORT and laying is not None:
            # Another player's press would end the open play and move the game on past a card nobody has named:
            # the ask was dropped with it, and a card laid was lost. The asked player answers first.
            who = self.players[laying]
            self.say(
                Prompt(
                    seat,
                    f"the card on the pile is not read yet: {who} picks it, places it again, or long "
                    "presses if none was laid",
                )
            )
            return
        if press.press is Press.LONG:
            if self.choosing is not None and seat == self.pending_seat:
                options = demand_options(self.rules, self.pending[-1])
                self._commit(options[self.choosing])
            else:
                self._undo()
            return
        if self.pending:
            if seat != self.pending_seat:
                self._commit(None)
            else:
                options = demand_options(self.rules, self.pending[-1])
                if options:
                    self.choosing = 0 if self.choosing is None else (self.choosing + 1) % len(options)
                    choice = options[self.choosing]
                    label = "no demand" if choice is None else f"demand {_named(choice)}"
                    self.say(Prompt(seat, f"{label}? long press to confirm"))
                    return
                self._commit(None)
                return
        if game.is_over or seat != game.to_move:
            if not game.is_over:
                self.say(Prompt(seat, f"not your turn: {self.players[game.to_move or 0]} to play"))
            return
        if game.penalty or game.skip:
            action: Action = Accept()
        elif game.phase is MakaoPhase.DRAWN:
            action = Pass()
        else:
            action = Draw()
        self._apply(seat, action)

    # ------------------------------------------------------------------ applying

    def _commit(self, demand: Rank | Suit | None) -> None:
        seat = self.pending_seat
        cards = tuple(self.pending)
        self.pending, self.pending_seat, self.choosing = [], None, None
        if seat is None or not cards:
            return
        self._apply(seat, Play(cards, demand))

    def _apply(self, seat: int, action: Action) -> None:
        game = self.mgame
        assert game is not None
        self.unreadable.pop(PILE, None)
        self.reopen = None  # (``_lay`` sets it again after the play it closes)
        before_out = set(game.out_order)
        penalty, skip = game.penalty, game.skip
        reshuffles, under_top = game.reshuffles, len(game.pile) - 1
        violations = game.observe(seat, action)
        self.turns.append((seat, action))
        turn = game.turn_count
        for v in violations:
            self.say(ViolationFound(str(v.rule), v.seat, v.turn, v.reason, proven_at=turn))
        if game.reshuffles > reshuffles:
            # the player took the pile from under its top card to draw: said before the draw, and heard by the
            # camera's tracker, for which those cards are gone (a card of them played again is a new card)
            self.say(StockRenewed(seat, under_top, game.top))
        if isinstance(action, Draw):
            self.say(DrawCards(seat, 1))
        elif isinstance(action, Accept):
            if penalty:
                self.say(DrawCards(seat, penalty))
            elif skip:
                self.say(Skip(seat, skip))
        if isinstance(action, Play) and action.demand is not None:
            self.say(Demand(seat, demand_text(action.demand)))
        for out in game.out_order:
            if out not in before_out:
                self.say(PlayerOut(out, game.out_order.index(out) + 1))
        if game.is_over:
            self._end("")
            return
        self._announce_turn()

    def _announce_turn(self) -> None:
        game = self.mgame
        assert game is not None
        to_move = game.to_move
        if to_move is None:
            return
        if game.penalty:
            self.say(PenaltyPending(game.penalty, to_move))
        elif game.skip:
            self.say(Skip(to_move, game.skip))
        self.say(TurnTo(to_move, PILE, game.turn_count))

    def _undo(self) -> None:
        game = self.mgame
        self.unreadable.pop(PILE, None)
        self.named = None
        if self.pending:
            card = self.pending.pop()
            seat = self.pending_seat
            if not self.pending:
                self.pending_seat, self.choosing = None, None
            self.say(Correction(seat, card, None, "undo"))
            if not self.pending and self.reopen is not None and game is not None:
                # the card taken back had closed the play before it: that play is open again
                seat, cards = self.reopen
                self.reopen = None
                game.pop()
                self.turns.pop()
                self.over = False
                self.pending, self.pending_seat = list(cards), seat
                shown = " ".join(str(c) for c in cards)
                self.say(Prompt(seat, f"{self.players[seat]}'s play of {shown} is open again: lay the rest or press"))
            return
        self.reopen = None
        if game is None:
            self.say(Prompt(None, "nothing to undo"))
            return
        if self.renewed is not None and len(self.turns) <= self.renewed:
            shuffled = f"the cards under {game.top} were shuffled into the stock"
            self.say(Prompt(None, f"{shuffled}: nothing before can be taken back"))
            return
        if not self.turns:  # only the starter so far: take it back, the next card on the pile starts
            self.mgame, self.over = None, False
            self.say(Correction(None, game.top, None, "undo the starter"))
            self.say(Prompt(None, "turn the starter card face up on the pile"))
            return
        renewals = game.reshuffles
        game.pop()
        seat, action = self.turns.pop()
        self.over = False
        old = action.cards[-1] if isinstance(action, Play) else None
        self.say(Correction(seat, old, None, f"undo {action}"))
        if game.reshuffles < renewals:
            # the draw taken back renewed the stock: its cards go back on the stock, the shuffled pile stays in it
            game.renew_stock()
            self.renewed = len(self.turns)
            self.say(Prompt(seat, f"put the drawn cards back on the stock; the cards under {game.top} stay in it"))
        self._announce_turn()

    def _end(self, reason: str) -> None:
        game = self.mgame
        self.over = True
        outcome = game.outcome() if game is not None else None
        if outcome is not None:
            self.say(GameOver(winners=outcome.out[:1], losers=outcome.losers, reason=reason or ENDED[outcome.ended_by]))
        else:
            self.say(GameOver(winners=(), reason=reason))

    # ------------------------------------------------------------------ views

    def lying(self) -> dict[str, tuple[Card, ...]]:
        game = self.mgame
        return {} if game is None else {PILE: (*game.pile, *self.pending)}

    def state(self) -> TableState:
        game = self.mgame
        if game is None:
            return TableState("makao", self.preset, self.players, phase="starter")
        demand = game.demand
        return TableState(
            "makao",
            self.preset,
            self.players,
            phase="over" if game.is_over else "turn",
            turn=game.to_move,
            top_card=self.pending[-1] if self.pending else game.top,
            penalty=game.penalty,
            demand="" if demand is None else demand_text(demand),
            skip=game.skip,
            cards_left=tuple(game.cards_left),
            out=tuple(game.out_order),
            game_over=game.is_over,
            violations=tuple(v.reason for v in game.violations),
        )

    def record(self) -> dict[str, Any]:
        if self.mgame is None:
            return {
                "format": "cardtable-record/1",
                "game": "makao",
                "preset": self.preset,
                "players": list(self.players),
                "starter": [],
                "turns": [],
            }
        return record_of(self.mgame, self.turns, with_deal=False)
