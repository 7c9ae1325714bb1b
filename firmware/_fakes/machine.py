"""A desktop stand-in for MicroPython's ``machine`` module: just what firmware/main.py touches."""

resets = 0


class Pin:
    def __init__(self, pin_id: int, *args: object, **kwargs: object) -> None:
        self.id = pin_id


class WDT:
    """Records every feed, so a test can see the loop keeps the watchdog fed."""

    last: "WDT | None" = None

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        self.timeout = timeout
        self.feeds = 0
        WDT.last = self

    def feed(self) -> None:
        self.feeds += 1


def reset() -> None:
    global resets
    resets += 1
