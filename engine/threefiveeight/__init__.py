"""3-5-8 (Sergeant Major, Üçbeşsekiz, the online 18-deal game): rules as data, hands, sessions.

- :mod:`.rules`: every rule switch of RULES.md as a field of :class:`Rules`; :data:`PRESETS`.
- :mod:`.hand`: one hand (exchange, contract, kitty, play, score) in full or table knowledge.
- :mod:`.session`: the game around the hands (roles, rotation, Af, quota, length, tie-break).
- :mod:`.view`: what the public and each seat may see.
- :mod:`.bots`: legal-move bots for simulations and the benchmark.
"""

from engine.threefiveeight.rules import PRESETS, Contract, Rules

__all__ = ["PRESETS", "Contract", "Rules"]
