"""3-5-8 (Sergeant Major, Üçbeşsekiz, the online 18-deal game): rules as data, hands, sessions.

- :mod:`.rules`: every rule switch of RULES.md as a field of :class:`Rules`; :data:`PRESETS`.
- :mod:`.hand`: one hand (exchange, contract, kitty, play, score) in full or table knowledge, with the
  proofs of violations; the controller's API is described in its docstring.
- :mod:`.session`: the game around the hands (roles, rotation, Af, quota, length, tie-break, records).
- :mod:`.view`: what the public and each seat may see.
- :mod:`.bots`: legal-move bots for simulations and the benchmark.
"""

from engine.threefiveeight.hand import Deal, Hand, Phase, PlayResult, Violation
from engine.threefiveeight.rules import PRESETS, Contract, Rules
from engine.threefiveeight.session import Outcome, Session

__all__ = ["PRESETS", "Contract", "Deal", "Hand", "Outcome", "Phase", "PlayResult", "Rules", "Session", "Violation"]
