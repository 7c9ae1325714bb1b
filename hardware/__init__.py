"""The table's devices, each with a real backend for the Pi and a simulated one chosen by config.

- ``hardware.events``: ``SeatButton(seat | None, Press.SHORT | Press.LONG, t)``, what buttons report.
- ``hardware.buttons``: ``SeatButtons`` (gpiozero), ``SimulatedButtons``, ``SeatLeds``.
- ``hardware.ring``: the ``Ring`` interface and ``ring_from_config`` (``serial:auto``,
  ``serial:<device>``, ``simulated``, ``png:<dir>``); backends in ``hardware.link`` (``LinkRing``, USB
  serial to the Pico firmware) and ``hardware.simring`` (``SimulatedRing``).
- ``hardware.display``: ``ScoreboardView``, ``render``, ``Scoreboard`` and ``scoreboard_from_config``
  (``inky``, ``waveshare:<model>``, ``png:<dir>``, ``terminal``).

Only ``engine`` may be imported from here (tests/test_import_graph.py); hardware libraries (gpiozero
pins, pyserial, inky, waveshare_epd) are imported inside the backends that need them.
"""
