"""Procedural card faces for tests that must not depend on the committed demo deck."""

from functools import cache

import cv2
import numpy as np

from engine.cards import Card

RED = (40, 40, 200)
BLACK = (20, 20, 20)


@cache
def placeholder_face(card: Card) -> np.ndarray:
    """A white 250 x 350 BGRA card with its index printed in two opposite corners."""
    h, w = 350, 250
    img = np.zeros((h, w, 4), np.uint8)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (250, 250, 250, 255), -1)
    colour = RED if card.suit.is_red else BLACK
    text = card.rank.code
    cv2.putText(img, text, (8, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (*colour, 255), 3)
    cv2.putText(img, card.suit.value, (12, 82), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (*colour, 255), 2)
    cv2.putText(img, f"{text}{card.suit.value}", (70, 200), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (*colour, 255), 4)
    corner = img[:90, :60].copy()
    img[h - 90 :, w - 60 :] = corner[::-1, ::-1]
    img.setflags(write=False)
    return img


def placeholder_boxes(card: Card) -> list[tuple[int, int, int, int]]:
    return [(4, 4, 60, 90), (190, 260, 246, 346)]
