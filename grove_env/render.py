"""Rendering: the public table as text (``ansi``, ``human``) or an image (``rgb_array``,
Pillow, imported lazily)."""

from __future__ import annotations

import gymnasium
import numpy as np

from grove_env.core import Game
from grove_env.text import describe_table

RENDER_MODES = ["ansi", "human", "rgb_array"]


def render(game: Game | None, mode: str | None) -> str | np.ndarray | None:
    """What ``env.render()`` gives in ``mode`` (``human`` prints and gives ``None``)."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
        return None
    if game is None:
        raise RuntimeError("call reset() before render()")
    if mode == "rgb_array":
        return table_image(game)
    text = describe_table(game, reveal=False)
    if mode == "human":
        print(text)
        return None
    return text


WIDTH, HEIGHT = 480, 320
SEAT_COLOURS = [(220, 60, 60), (60, 120, 220), (60, 170, 80), (230, 170, 40), (150, 80, 190)]


def table_image(game: Game) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of what everyone can see."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError(
            "render_mode='rgb_array' needs Pillow: pip install 'grove-env[render]'"
        ) from err
    img = Image.new("RGB", (WIDTH, HEIGHT), (34, 85, 51))
    draw = ImageDraw.Draw(img)
    draw.text((10, 8), f"{game.rules.name}  round {game.round}", fill=(255, 255, 255))
    for slot in range(3):
        x0 = 60 + slot * 130
        edge = (255, 220, 0) if slot == game.tampered_slot else (240, 240, 240)
        draw.rectangle((x0, 40, x0 + 90, 160), fill=(90, 70, 50), outline=edge, width=3)
        draw.text((x0 + 8, 46), f"suspect {slot}", fill=(255, 255, 255))
        if slot == game.unseen_slot:
            draw.text((x0 + 8, 140), "unseen", fill=(255, 200, 200))
        for level, owner in enumerate(game.stacks[slot]):
            y = 165 + 14 * level
            draw.ellipse((x0 + 35, y, x0 + 55, y + 12), fill=SEAT_COLOURS[owner])
    for seat in range(game.num_players):
        x0 = 10 + seat * 94
        colour = SEAT_COLOURS[seat]
        width = 4 if not game.terminal and seat == game.current_player else 1
        draw.rectangle((x0, 250, x0 + 86, 310), outline=colour, width=width)
        draw.text((x0 + 6, 254), f"P{seat}", fill=colour)
        draw.text((x0 + 6, 270), f"col {game.coloured[seat]}", fill=(255, 255, 255))
        draw.text((x0 + 6, 286), f"pen {game.penalty[seat]}", fill=(160, 160, 160))
    return np.asarray(img, dtype=np.uint8)
