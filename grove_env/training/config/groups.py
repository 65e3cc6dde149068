"""The training config's other groups of fields: the table, opponents, evaluations, the run.

Each group is a pydantic model that :class:`~grove_env.training.config.TrainConfig`
inherits from, so the YAML stays one flat mapping while each file stays readable; the
learning settings are in :mod:`~grove_env.training.config.learning`. Every field
carries its docstring (pydantic reads it as the field's description). No torch here.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from grove_env.rules import RULE_SETS, get_rules
from grove_env.training.config.fields import STRICT, AgentSpec, Float, Int, Table, Text


class OpponentMix(BaseModel):
    """Sampling weights for who plays the seats other than the learner's (normalised).

    A kind the config leaves out keeps its default below; the agents are named as their
    specs (``stack-avoider``, ``heuristic-trust``).
    """

    model_config = ConfigDict(**STRICT, populate_by_name=True)

    live: Float = Field(0.5, ge=0.0)
    """The learner's current weights, sampling its policy (pure self-play)."""
    pool: Float = Field(0.2, ge=0.0)
    """A past snapshot of the learner from the opponent pool (live until one exists)."""
    heuristic: Float = Field(0.2, ge=0.0)
    """The reference ``heuristic`` agent (:mod:`grove_env.agents.heuristic.search`)."""
    random: Float = Field(0.1, ge=0.0)
    """Uniformly random legal moves."""
    greedy: Float = Field(0.0, ge=0.0)
    """``greedy``: the likeliest culprit (:mod:`grove_env.agents.scripted.greedy`)."""
    stack_avoider: Float = Field(0.0, ge=0.0, alias="stack-avoider")
    """The gauntlet's ``stack-avoider`` (:mod:`grove_env.agents.scripted.styles`, as the four
    below)."""
    piler: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``piler``: accuses likely innocents, expecting to be covered."""
    follower: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``follower``: repeats the previous accusation."""
    contrarian: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``contrarian``: accuses where nobody has."""
    bluffer: Float = Field(0.0, ge=0.0)
    """The gauntlet's ``bluffer``: a first player who swaps and accuses to mislead."""
    heuristic_trust: Float = Field(0.0, ge=0.0, alias="heuristic-trust")
    """The first heuristic (``heuristic-trust``); slow per move, unlike the others."""
    agents: dict[AgentSpec, Annotated[Float, Field(ge=0.0)]] = {}
    """Any other agents by their spec, each with its weight (``{"zoo:revised-3p": 1.0}``,
    ``{"ppo:runs/x": 0.5}``): a frozen policy the learner meets as it plays everywhere
    else (a learned best response trains against one, :mod:`grove_env.training.bestresponse`).
    A kind named above keeps its own key."""

    @model_validator(mode="after")
    def _positive_sum(self) -> OpponentMix:
        named = set(self.model_dump(by_alias=True, exclude={"agents"}))
        twice = sorted(named.intersection(self.agents))
        if twice:
            raise ValueError(f"agents: {twice[0]!r} has its own key: set opponents.{twice[0]}")
        if sum(self.weights().values()) <= 0:
            raise ValueError("weights must have a positive sum")
        return self

    def weights(self) -> dict[str, float]:
        """Weight per opponent kind, keyed by its spec (``live``, ``pool`` or an agent)."""
        return {**self.model_dump(by_alias=True, exclude={"agents"}), **self.agents}


class TableFields(BaseModel):
    """Which game the learner plays, and the run's name."""

    model_config = STRICT

    name: Text = "grove"
    """Run name; the run directory is ``<runs_root>/<name>-s<seed>-<timestamp>`` (so no
    path separator or control character)."""
    rules: str = "classic"
    """Rule set the learner trains on: a name in :data:`grove_env.rules.RULE_SETS`."""
    num_players: Int = 4
    """Seats per game; the rule set's ``player_counts`` say which are allowed."""
    tables: list[Table] = []
    """Train one network on several tables at once: ``rules:players`` entries such as
    ``classic:4``, or ``all`` for every table of every rule set (the observation is the
    same shape on all of them); ``num_envs`` games are split evenly between the tables,
    and every evaluation runs on each. Empty: the one table of ``rules`` and
    ``num_players``."""
    reward: Literal["outcome", "markers", "win"] = "outcome"
    """``outcome``: zero-sum rank reward at the end; ``markers``: dense per round;
    ``win``: win points minus the fair share at the end (what win share measures)."""
    max_rounds: Int = Field(100, ge=1)
    """Rounds after which an unfinished game is truncated (see ``truncation``)."""
    truncation: Literal["bootstrap", "end"] = "bootstrap"
    """A game cut off at ``max_rounds``: ``bootstrap``: its value is bootstrapped from the
    learner's last observation (the game would go on); ``end``: the cut is its end, worth
    nothing more (a game of ``max_rounds`` rounds: with ``max_rounds: 1`` and ``reward:
    markers``, the one round the exact NashConv measures). ``backend: batched`` only."""

    @field_validator("name")
    @classmethod
    def _one_folder_name(cls, name: str) -> str:
        # The name becomes a folder inside runs_root: "../x" or "a/b" would leave it.
        if any(c in name for c in "/\\") or any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise ValueError("must be a plain folder name (no '/', '\\' or control characters)")
        return name

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: str) -> str:
        if rules not in RULE_SETS:
            raise ValueError("must be one of " + ", ".join(map(repr, RULE_SETS)))
        return rules

    @field_validator("num_players")
    @classmethod
    def _seats_the_rules_allow(cls, num_players: int, info: ValidationInfo) -> int:
        rules = info.data.get("rules")  # absent if the rule-set name was wrong
        if rules is not None and num_players not in get_rules(rules).player_counts:
            raise ValueError(f"rules {rules!r} allow {list(get_rules(rules).player_counts)}")
        return num_players


class OpponentFields(BaseModel):
    """Who plays the other seats, and the warm start by imitation."""

    model_config = STRICT

    imitate: AgentSpec | None = None
    """A teacher agent (``heuristic``) whose moves the network learns first, before PPO
    (:mod:`grove_env.training.selfplay.teacher`); ``null``: PPO from random weights."""
    imitate_steps: Int = Field(262_144, ge=1)
    """Teacher decisions, in the run's own training games, to learn from."""
    imitate_epochs: Int = Field(4, ge=1)
    """Passes over the teacher's decisions (minibatches of ``batch_size``)."""

    opponents: OpponentMix = OpponentMix()  # frozen, so one shared default is safe
    """Who plays the other seats (weights, normalised). A kind a mapping leaves out keeps
    its default weight (``live`` 0.5, ``pool`` 0.2, ``heuristic`` 0.2, ``random`` 0.1, the
    others 0): ``{agents: {"zoo:revised-3p": 1.0}}`` alone is half that agent."""
    follow_worst: Float = Field(0.0, ge=0.0)
    """Move the mix towards the opponents the learner does worst against: after each quick
    evaluation, every kind with a weight in ``opponents`` that ``eval_opponents`` also
    names is weighted by ``exp(follow_worst * (fair - share) / fair)`` (``share``: the
    learner's win share against it, ``fair``: one over the seats), and these kinds share
    out the total weight ``opponents`` gave them (``live`` and ``pool`` keep theirs).
    ``0``: the mix as written. Batched backend, one table
    (:func:`~grove_env.training.selfplay.opponents.follow_worst`)."""
    round_games: Float = Field(0.0, ge=0.0, lt=1.0)
    """The share of ``num_envs`` games that play the first round alone (one round from the
    start of a game, ``reward: markers``, the round's end its end: the game the exact
    one-round NashConv measures) against ``round_opponents``, beside the whole games. The
    first round is then learnt from these games only: a whole game's first-round
    decisions still count as steps but are not learnt from (the two games' returns differ
    at the same observation). ``0``: whole games only. Batched backend, ``learn_from:
    live_seats``, one table, ``max_rounds`` above 1
    (:mod:`~grove_env.training.batched.lanes`)."""
    round_opponents: OpponentMix = OpponentMix(live=1.0, pool=0.0, heuristic=0.0, random=0.0)
    """Who plays the other seats of the ``round_games`` (weights, normalised; unlike
    ``opponents``, a kind the mapping leaves out gets 0): by default the learner's live
    weights in every seat. No ``pool`` (its snapshots play the whole games)."""

    @field_validator("round_opponents", mode="before")
    @classmethod
    def _left_out_is_none(cls, mix: object) -> object:
        if not isinstance(mix, dict):
            return mix
        left_out = {
            field.alias or name: 0.0
            for name, field in OpponentMix.model_fields.items()
            if name != "agents" and name not in mix and (field.alias or name) not in mix
        }
        return {**left_out, **mix}

    opponent_sampling: Literal["game", "seat"] = "game"
    """``game``: one opponent kind per game for all other seats; ``seat``: one per seat."""
    learner_seat: Literal["rotate", "random"] = "rotate"
    """How each new game picks the learner's seat (so it learns every seat)."""
    snapshot_every: Int = Field(100_000, ge=1)
    """Learner steps between snapshots added to the opponent pool."""
    pool_size: Int = Field(5, ge=1)
    """Snapshots kept in the pool (oldest dropped first)."""


class EvalFields(BaseModel):
    """Quick evaluations, exploitability, the best policy, checkpoints and the final gauntlet."""

    model_config = STRICT

    eval_every: Int = Field(100_000, ge=1)
    """Learner steps between quick evaluations (each may replace ``best.zip``)."""
    eval_games: Int = Field(400, ge=1)
    """Games per opponent kind in a quick evaluation (batched engine, played as ``play`` says)."""
    eval_opponents: list[AgentSpec] = Field(["random", "heuristic"], min_length=1)
    """Opponents of the quick evaluation, each an agent spec (the learner against ``n - 1``
    of it); the best policy is the one whose evaluation scores highest (``best_by``)."""
    best_by: Literal["mean", "mean_and_worst", "nashconv"] = "mean"
    """Score of a quick evaluation: the mean win share over ``eval_opponents``, or the
    mean of that mean and the worst one (a policy that no style beats); ``nashconv``:
    the lowest NashConv measured (``exploit_every``), the whole game's at 2 players."""
    exploit_every: Int | None = Field(None, ge=1)
    """Learner steps between exact NashConv measurements of the current policy at the
    run's table (:mod:`grove_env.analysis`): one round from the start of a game at 2 to
    4 players, and the whole game too at 2 players; written to ``metrics.csv``,
    TensorBoard and ``nashconv.png``. ``null``: never. One round takes seconds at 2
    players and about a minute at 4."""
    play: Literal["greedy", "sample"] = "greedy"
    """How the saved policy plays as ``ppo:`` and ``zoo:`` (written on its card), in the
    final gauntlet and everywhere else: its most likely legal move, or a draw from the
    policy as in training. An equilibrium-seeking run plays ``sample``: an equilibrium of
    this game mixes, and its most likely move alone is exploitable."""
    exploit_whole_game: bool = False
    """Measure the whole game's NashConv (``outcome``) at 3 players too, beside the
    round's (``exploit_every``; at 2 players it always is): exact, and about a minute per
    measurement at revised 3 (:mod:`grove_env.analysis.whole_game`). Beyond 3 players the
    whole game is not exact here (a learned best response gives a lower bound there)."""
    exploit_policy: Literal["sample", "greedy"] | None = None
    """The policy whose NashConv is measured (``exploit_every``): the one training samples
    from, or its most likely legal move; ``null``: as it plays (``play``)."""
    final_eval_games: Int = Field(2000, ge=0)
    """Games per opponent of the final gauntlet (:mod:`grove_env.agents.arena.gauntlet`: the
    learner against ``n - 1`` of each style and reference agent); 0: skip."""
    final_eval_workers: Int = Field(1, ge=1)
    """Worker processes of the final tournament."""
    final_nashconv: bool = False
    """After the final gauntlet, the exact NashConv of the best policy as it plays, beside
    the gauntlet in ``final_eval.txt``/``.json``: one round from the start of a game at
    each table of 2 to 4 players (``python -m grove_env.analysis nashconv``; seconds at 2
    and 3 players, about a minute and 1.6 GB at classic 4), and the whole game too at 2
    players and revised 3 (a few minutes at revised 3p; classic 3p would take hours)."""
    checkpoint_every: Int = Field(200_000, ge=1)
    """Learner steps between checkpoints (taken at rollout boundaries)."""
    keep_checkpoints: Int = Field(2, ge=1)
    """Periodic checkpoints kept on disk (the best one is kept besides)."""


class RunFields(BaseModel):
    """Where the run is written and what it runs on."""

    model_config = STRICT

    runs_root: Text = "runs"
    """Folder that holds run directories."""
    run_dir: Text | None = None
    """Exact run directory instead of ``<runs_root>/<name>-s<seed>-<timestamp>``."""
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    """Torch device of the policy: ``cpu``; ``cuda`` (an error if torch finds no CUDA
    device); ``auto`` (CUDA where present). The games always run on the CPU. ``run.json``
    records the device used."""
    torch_threads: Int = Field(1, ge=1)
    """``torch.set_num_threads`` for the run (``backend: batched`` runs its passes over
    thousands of rows, which 2 threads share on an idle 2-core machine; where other
    processes hold the cores, 1 is several times faster: see that package)."""
    progress: bool = True
    """Show a tqdm progress bar."""
