"""The synthetic table renderer as a frame source: the demo's camera, and a test fixture with truth."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from engine.cards import deck
from vision.render.script import Action, Collect, Place
from vision.render.table import RenderedFrame, RenderSettings, TableRenderer
from vision.sources.base import Frame, FrameSource
from vision.zones import layout_for


class SyntheticSource(FrameSource):
    """Frames of ``renderer`` playing ``actions``; ``last`` holds the latest frame's truth."""

    def __init__(self, renderer: TableRenderer, actions: Iterable[Action]) -> None:
        super().__init__()
        self.name = "synthetic"
        self.renderer = renderer
        self.actions = actions
        self.last: RenderedFrame | None = None

    def frames(self) -> Iterator[Frame]:
        for rendered in self.renderer.render(self.actions):
            if self.closed:
                return
            self.last = rendered
            yield rendered.frame
        self.status = "ended"

    @classmethod
    def demo(
        cls, game: str = "358", seed: int = 0, tricks: int = 3, settings: RenderSettings | None = None
    ) -> SyntheticSource:
        """A few random tricks (3-5-8) or pile plays (Makao) with the committed demo deck."""
        layout = layout_for(game)
        renderer = TableRenderer(layout, settings, seed=seed)
        return cls(renderer, demo_script(game, seed, tricks))


def demo_script(game: str, seed: int = 0, tricks: int = 3) -> list[Action]:
    """Random plays without rules: three cards a trick into the seat zones, or cards onto the Makao pile."""
    rng = np.random.default_rng(seed)
    cards = deck()
    order = rng.permutation(len(cards))
    actions: list[Action] = []
    if game == "makao":
        for k in range(tricks * 3):
            actions.append(Place(cards[int(order[k])], "pile", seat=k % 3))
        return actions
    n = 0
    leader = 0
    for _ in range(tricks):
        for i in range(3):
            seat = (leader + i) % 3
            actions.append(Place(cards[int(order[n])], f"seat{seat}", seat=seat))
            n += 1
        leader = int(rng.integers(0, 3))
        actions.append(Collect(("seat0", "seat1", "seat2"), seat=leader))
    return actions
