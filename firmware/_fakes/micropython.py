"""A desktop stand-in for the ``micropython`` module: records ``kbd_intr`` calls."""

kbd_intr_calls: list[int] = []


def kbd_intr(chr: int) -> None:
    kbd_intr_calls.append(chr)


def const(value: int) -> int:
    return value
