"""Where a training run keeps its policies, and the error for a bad model file.

A run directory holds::

    best_policy.json, best_policy.pt      the best policy so far, safe format
    best.zip                              the same policy as a MaskablePPO zip
    checkpoints/step_<12 digits>/
        policy.json, policy.pt            the policy at that step, safe format
        model.zip, pool.pt, state.json    what ``--resume`` needs

The zoo, one trained policy per table shipped in the wheel (the ``zoo:<rules>-<n>p``
agent, e.g. ``zoo:revised-2p``), keeps each table's policy and its card in a folder::

    grove_env/data/zoo/<rules>_<n>p/policy.json, policy.pt   the policy, safe format
    grove_env/data/zoo/<rules>_<n>p/card.json                how it was made, measured

The zoo card (:data:`ZOO_CARD_FIELDS`) records the config the policy was trained from,
its steps and seed, its exact NashConv as ``zoo:`` plays it (as the policy card's
``play`` says; one round from the start of a game at 2 to 4 players, the whole game too
at two players) and its
gauntlet summary; ``make zoo`` (``scripts/zoo.py``)
re-trains the policies from ``configs/zoo/<rules>_<n>p.yaml`` and writes the cards.

The safe format (:mod:`grove_env.agents.learned.safe_policy`) is what the ``ppo:`` agent
plays; it loads without running code. The zips are stable-baselines3's: loading one
whole unpickles it (only the ``sb3:`` agent does, on request), while ``--resume``
reads only their tensors. A checkpoint folder is complete once its ``state.json``
exists. The trainer (:mod:`grove_env.training.run.checkpoint`) writes this layout and the
agents read it, so it is defined here, below both.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from grove_env.messages import one_line
from grove_env.rules import RULE_SETS

CHECKPOINTS = "checkpoints"
CHECKPOINT_PREFIX = "step_"
BEST = "best.zip"
BEST_POLICY = "best_policy.json"
POLICY = "policy.json"


class ModelFileError(ValueError):
    """A saved model or policy is missing, corrupt, unsafe to load, or not for this game."""


def checkpoints(run_dir: Path) -> list[Path]:
    """The complete checkpoint folders of a run, newest first."""
    folder = Path(run_dir) / CHECKPOINTS
    if not folder.is_dir():
        return []
    done = [
        p
        for p in folder.iterdir()
        if p.is_dir() and p.name.startswith(CHECKPOINT_PREFIX) and (p / "state.json").is_file()
    ]
    return sorted(done, key=lambda p: p.name, reverse=True)


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest complete checkpoint folder of a run, or ``None``."""
    done = checkpoints(run_dir)
    return done[0] if done else None


ZOO_POLICY = POLICY
ZOO_CARD = "card.json"
ZOO_CARD_FIELDS = (
    "table",
    "spec",
    "config",
    "steps",
    "seed",
    "nash_conv",
    "gauntlet",
    "train_seconds",
    "command",
    "versions",
)
"""The keys of a zoo card (``scripts/zoo.py`` writes them)."""


def zoo_tables() -> list[str]:
    """Every table of the game, as the zoo names them: ``classic-2p`` ... ``revised-5p``."""
    return [f"{r}-{n}p" for r, rules in sorted(RULE_SETS.items()) for n in rules.player_counts]


def parse_zoo_table(table: str) -> tuple[str, int]:
    """``"revised-2p"`` -> ``("revised", 2)``; a table the game lacks is a one-line error."""
    rules, _, players = table.strip().partition("-")
    known = zoo_tables()
    if f"{rules}-{players}" not in known:
        raise ModelFileError(f"zoo: no table {table!r}; the tables are {', '.join(known)}")
    return rules, int(players[:-1])


def zoo_table_refusal(arg: str | None, rules: str, num_players: int) -> str | None:
    """Registry table check of ``zoo:<table>``: a table's policy plays that table only
    (``None``: it can play ``rules`` with ``num_players``)."""
    if not arg:
        return None  # the factory says what is missing
    try:
        own_rules, own_players = parse_zoo_table(arg)
    except ModelFileError as err:
        return str(err)
    if (own_rules, own_players) != (rules, num_players):
        return (
            f"zoo:{arg.strip()} plays {own_rules} with {own_players} players, not {rules} "
            f"with {num_players}"
        )
    return None


def zoo_folder() -> Path:
    """Where the zoo's policies ship (``grove_env/data/zoo``)."""
    return Path(str(resources.files("grove_env") / "data" / "zoo"))


def zoo_dir(table: str, root: Path | None = None) -> Path:
    """The folder of a table's policy and card, e.g. ``.../zoo/revised_2p``."""
    rules, n = parse_zoo_table(table)
    return (root or zoo_folder()) / f"{rules}_{n}p"


def zoo_shipped(root: Path | None = None) -> list[str]:
    """The tables whose policy ships."""
    return [t for t in zoo_tables() if (zoo_dir(t, root) / ZOO_POLICY).is_file()]


def read_zoo_card(table: str, root: Path | None = None) -> dict[str, Any]:
    """The card of a table's policy, or a one-line ``ModelFileError``."""
    path = zoo_dir(table, root) / ZOO_CARD
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelFileError(f"zoo: no card for {table} at {str(path)!r}") from None
    except (OSError, ValueError) as e:
        raise ModelFileError(f"zoo: the card {str(path)!r} is unusable: {one_line(e)}") from None
    if not isinstance(card, dict) or card.get("table") != table.strip():
        raise ModelFileError(f"zoo: {str(path)!r} is not the card of {table}")
    return card
