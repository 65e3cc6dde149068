"""A descent run: the stages of a config's ``descent:`` section, in its run directory.

``grove-train --config configs/descent/revised_2p.yaml`` (the section's fields:
:mod:`grove_env.training.config.descent`). The front door makes the run directory, its
lock, ``config.yaml`` and ``run.json``, as for any run (and with ``start: trained`` the
PPO run in ``RUN/trained`` first); this learner adds:

- ``descent.csv``: ``iteration,nash_conv,seconds,measure`` at every measurement, the
  iterations and seconds counted from the first stage's start, ``measure`` ``round``
  (one round), ``game`` (the whole game) or ``table`` (a table stage's table); then, per
  opponent of a play term or a floor, ``markers_vs_<spec>``: the policy's expected
  first-round markers against ``n - 1`` copies of it (empty in a stage without it);
- ``best_policy.json``/``.pt``: the weights the last stage kept, safe format, playing by
  sampling; ``ppo:RUN`` plays them;
- ``result.json``: the settings, the iteration kept, and the kept policy's exact NashConv
  as it plays (one round in markers; at two players the whole game in outcome units).

A descent keeps no checkpoint: ``--resume`` of an unfinished one resumes its PPO start
(if any) and descends again from there; of a finished one, says it is complete.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import torch

from grove_env.agents.base import make_agent
from grove_env.agents.learned.actor import Actor
from grove_env.agents.learned.policy_files import BEST_POLICY, ModelFileError
from grove_env.agents.learned.ppo import load_actor
from grove_env.agents.learned.safe_policy import save_policy
from grove_env.analysis.measure import round_tree
from grove_env.messages import one_line
from grove_env.rules import get_rules
from grove_env.training.config import ConfigError, TrainConfig
from grove_env.training.config.descent import DescentSection
from grove_env.training.descent.stages import StageLog, run_stage
from grove_env.training.measure.evaluate import final_nash_conv
from grove_env.training.run import checkpoint
from grove_env.training.run.directory import atomic_write_text, nash_conv_line
from grove_env.training.run.network import ActorCritic

RESULT = "result.json"


class DescentRun:
    """One descent (module docstring): a :class:`~grove_env.training.front.Learner`."""

    @staticmethod
    def latest_checkpoint(run_dir: Path) -> Path | None:
        """None: a descent keeps no checkpoint (a resume descends again)."""
        return None

    @staticmethod
    def check(cfg: TrainConfig) -> None:
        """Before the run directory exists: every opponent of a play term or a floor must
        be an agent whose move probabilities the analysis can ask."""
        assert cfg.descent is not None
        if cfg.descent.init is not None:  # a policy there, of the config's network
            try:
                start_from(checkpoint.policy_card(cfg, 0).build(), cfg.descent.init, cfg)
            except ModelFileError as e:
                raise ConfigError(f"descent.init: {one_line(e)}") from None
        for stage in cfg.descent.stages():
            for key, specs in (("against", stage.against), ("floors", stage.floors)):
                for spec in specs:
                    check_opponent(key, spec)

    def __init__(
        self, cfg: TrainConfig, run_dir: Path, ckpt: Path | None = None, device: str = "cpu"
    ) -> None:
        assert cfg.descent is not None, "a descent run needs a descent: section"
        self.cfg, self.run_dir, self.section = cfg, run_dir, cfg.descent
        self.kept_at = 0
        self.began = time.perf_counter()
        torch.manual_seed(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        # initialised as every torch learner's network is (orthogonal, the critic beside it)
        self.actor: Actor = ActorCritic(checkpoint.policy_card(cfg, 0)).actor
        self.init_steps = 0
        start = start_policy(self.section, run_dir)
        if start is not None:
            self.init_steps = start_from(self.actor, start, cfg)
            versions = Path(start) / "versions.json"  # what trained the start; the card shows it
            if versions.is_file():
                shutil.copyfile(versions, run_dir / "versions.json")
        self.later_states = 0
        if self.complete():  # a resume of a finished descent: what it kept
            self.kept_at = int(json.loads((run_dir / RESULT).read_text())["kept_iteration"])

    @property
    def step(self) -> int:
        return self.kept_at

    def complete(self) -> bool:
        return (self.run_dir / RESULT).is_file()

    def close(self) -> None:
        """Nothing outside this process to let go of."""

    def learn(self) -> bool:
        """Every stage in turn; the kept weights saved. False if interrupted."""
        cfg, stages = self.cfg, self.section.stages()
        rules, n = cfg.table_list()[0]
        tree = round_tree(get_rules(rules), n)  # after a PPO start: 1.2 GB at 4 players
        specs = list(dict.fromkeys(s for st in stages for s in [*st.against, *st.floors]))
        log = StageLog(self.run_dir / "descent.csv", specs, self.began)
        done = 0
        try:
            for stage in stages:
                kept, self.later_states = run_stage(self.actor, tree, stage, cfg, log, done)
                self.kept_at = done + kept
                done += stage.iterations
        except KeyboardInterrupt:
            print("interrupted: no policy kept (a resume descends again)", flush=True)
            return False
        finally:
            log.close()
        step = self.init_steps if self.section.start == "trained" else self.kept_at
        save_policy(self.actor, checkpoint.policy_card(cfg, step), self.run_dir / BEST_POLICY)
        return True

    def finish(self) -> str | None:
        """The kept policy's exact NashConv as it plays, into ``result.json``."""
        cfg = self.cfg
        rules, n = cfg.table_list()[0]
        measured = final_nash_conv(f"ppo:{self.run_dir}", rules, n, cfg.max_rounds)
        result = {
            "rules": rules,
            "num_players": n,
            "seed": cfg.seed,
            **self.section.model_dump(),
            "later_states": self.later_states,
            "init_steps": self.init_steps,
            "kept_iteration": self.kept_at,
            "nash_conv": measured,
            "seconds": round(time.perf_counter() - self.began, 1),
        }
        atomic_write_text(self.run_dir / RESULT, json.dumps(result, indent=2) + "\n")
        line = f"kept iteration {self.kept_at}; " + nash_conv_line(measured)
        print(line, flush=True)
        return line


def start_policy(section: DescentSection, run_dir: Path) -> str | None:
    """Where the descent starts: ``init``, the PPO start's run, or random weights (None)."""
    if section.start == "trained":
        return str(run_dir / "trained")
    return section.init


def start_from(actor: Actor, policy: str, cfg: TrainConfig) -> int:
    """Load ``policy`` (a run directory or policy file) into ``actor``; its steps. A
    policy of another network than the config's is a :class:`ConfigError`."""
    start, card = load_actor(policy)
    if card.net_arch != tuple(cfg.net_arch) or card.features != cfg.features:
        raise ConfigError(f"{policy!r} is another network than the config's")
    actor.load_state_dict(start.state_dict())
    return card.step


def check_opponent(key: str, spec: str) -> None:
    """A :class:`ConfigError` unless ``spec`` makes an agent whose move probabilities
    the analysis can ask (``key``: the setting that names it)."""
    try:
        agent = make_agent(spec, seed=0)
    except (ValueError, ModelFileError) as e:
        raise ConfigError(f"{key} {spec!r}: {one_line(e)}") from None
    if not (hasattr(agent, "action_probabilities") or getattr(agent, "deterministic", False)):
        raise ConfigError(
            f"{key} {spec!r}: its move probabilities cannot be asked "
            "(the styles, heuristic, random, cfr and ppo: can)"
        )
