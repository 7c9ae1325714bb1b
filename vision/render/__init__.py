"""The synthetic table renderer: overhead frames of a played game with their truth (see :mod:`.table`)."""

from vision.render.script import Action, Collect, Gather, Nudge, PickUp, Place, Slide, Wait, squared_up
from vision.render.table import (
    CornerTruth,
    FrameTruth,
    RenderedFrame,
    RenderSettings,
    TableRenderer,
    TruthEvent,
)

__all__ = [
    "Action",
    "Collect",
    "CornerTruth",
    "FrameTruth",
    "Gather",
    "Nudge",
    "PickUp",
    "Place",
    "RenderSettings",
    "RenderedFrame",
    "Slide",
    "TableRenderer",
    "TruthEvent",
    "Wait",
    "squared_up",
]
