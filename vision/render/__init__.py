"""The synthetic table renderer: overhead frames of a played game with their truth (see :mod:`.table`)."""

from vision.render.script import (
    LEAN_FRAMES,
    LEAN_SHARE,
    REST_FRAMES,
    Action,
    Collect,
    Gather,
    Lean,
    Nudge,
    PickUp,
    Place,
    Rest,
    Slide,
    Wait,
    squared_up,
)
from vision.render.table import (
    CornerTruth,
    FrameTruth,
    RenderedFrame,
    RenderSettings,
    TableRenderer,
    TruthEvent,
)

__all__ = [
    "LEAN_FRAMES",
    "LEAN_SHARE",
    "REST_FRAMES",
    "Action",
    "Collect",
    "CornerTruth",
    "FrameTruth",
    "Gather",
    "Lean",
    "Nudge",
    "PickUp",
    "Place",
    "RenderSettings",
    "RenderedFrame",
    "Rest",
    "Slide",
    "TableRenderer",
    "TruthEvent",
    "Wait",
    "squared_up",
]
