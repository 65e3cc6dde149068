"""Saved policies from a hostile or careless hand: no code runs, damage gives one line.

A smoke run of ``train.py`` (``configs/smoke.yaml``) gives a real run directory; the
tests copy it and doctor the copies (:mod:`hostile_files`). Covered: a zip whose
``data`` runs code when unpickled (``ppo:`` and ``--resume`` never unpickle it; only
the documented opt-in ``sb3:`` does), truncated and garbage files (one-line
``ModelFileError``/``CheckpointError`` naming the path), the fall-back past a damaged
checkpoint, playing without stable-baselines3, and the same actions as the zip.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hostile_files import doctor_zip, pickle_bomb, rewrite_member, truncate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grove_env import Game, ObservationEncoder
from grove_env.agents.base import SPEC_HELP, make_agent
from grove_env.agents.learned import ppo, sb3
from grove_env.agents.learned.policy_files import (
    BEST,
    BEST_POLICY,
    POLICY,
    ModelFileError,
    checkpoints,
)
from grove_env.agents.learned.safe_policy import PolicyCard
from grove_env.training.config import load_config
from grove_env.training.run import checkpoint
from grove_env.training.run.checkpoint import CheckpointError

pytestmark = pytest.mark.slow  # its fixtures train policies and checkpoints

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def train(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "train.py", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=ENV)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    proc = train("--config", "configs/smoke.yaml", "--set", f"runs_root={root}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = root.iterdir()
    assert len(checkpoints(run_dir)) >= 2
    return run_dir


@pytest.fixture
def run(trained: Path, tmp_path: Path) -> Path:
    """A fresh copy of the trained run directory to damage."""
    return Path(shutil.copytree(trained, tmp_path / "run"))


def one_line_naming(error: pytest.ExceptionInfo, path: Path, problem: str) -> None:
    text = str(error.value)
    assert "\n" not in text and str(path) in text and problem in text, text


# ------------------------------------------------------------- code in a zip
def test_ppo_refuses_a_doctored_zip_without_running_it(run: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = doctor_zip(run / BEST, tmp_path / "evil.zip", marker)
    with pytest.raises(ModelFileError) as e:
        make_agent(f"ppo:{evil}")
    one_line_naming(e, evil, "can run code")
    assert "sb3:" in str(e.value)
    # A run directory with only a doctored zip: still never opened.
    (run / BEST_POLICY).unlink()
    shutil.rmtree(run / "checkpoints")
    doctor_zip(evil, run / BEST, marker)
    with pytest.raises(ModelFileError, match="only SB3 zips"):
        make_agent(f"ppo:{run}")
    assert not marker.exists()


def test_sb3_is_the_documented_opt_in_and_does_run_the_payload(run: Path, tmp_path: Path) -> None:
    assert "CAN RUN" in SPEC_HELP and "sb3:PATH" in SPEC_HELP
    assert sb3.__doc__ is not None and "CAN RUN CODE" in sb3.__doc__
    assert ppo.__doc__ is not None and "sb3:PATH" in ppo.__doc__
    marker = tmp_path / "pwned"
    evil = doctor_zip(run / BEST, tmp_path / "evil.zip", marker)
    with pytest.raises(ModelFileError):  # the payload replaced the policy class
        make_agent(f"sb3:{evil}")
    assert marker.exists(), "the payload is live: this is what ppo: and --resume must avoid"


def test_resuming_a_run_with_doctored_zips_never_unpickles_them(run: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for ckpt in checkpoints(run):
        doctor_zip(ckpt / "model.zip", ckpt / "model.zip", marker)
    doctor_zip(run / BEST, run / BEST, marker)
    (run / BEST_POLICY).unlink()  # a run from before the safe format: rebuilt from tensors
    done = train("--resume", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already complete" in done.stdout
    assert not marker.exists()
    assert (run / BEST_POLICY).is_file()


def test_a_damaged_old_best_zip_does_not_stop_a_resume(run: Path) -> None:
    (run / BEST_POLICY).unlink()  # a run from before the safe format, its best.zip cut
    truncate(run / BEST)
    done = train("--resume", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already complete" in done.stdout
    (warning,) = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert "best.zip not converted" in warning and str(run / BEST) in warning


def test_safe_weights_holding_a_pickle_payload_are_refused(run: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    weights = run / BEST_POLICY.replace(".json", ".pt")
    weights.write_bytes(pickle_bomb(marker))
    card = json.loads((run / BEST_POLICY).read_text())  # an attacker can fix the checksum
    card["weights_sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    (run / BEST_POLICY).write_text(json.dumps(card))
    with pytest.raises(ModelFileError) as e:
        make_agent(f"ppo:{run}")
    one_line_naming(e, weights, "do not fit its card")
    assert not marker.exists()


# ------------------------------------------------------------- damaged files
@pytest.mark.parametrize(
    ("damage", "named", "problem"),
    [
        (lambda card, weights: truncate(weights), ".pt", "not the ones its card was written for"),
        (lambda card, weights: weights.write_bytes(b"\x00garbage" * 50), ".pt", "not the ones"),
        (lambda card, weights: weights.unlink(), ".pt", "No such file"),
        (lambda card, weights: truncate(card), ".json", "is unusable"),
        (lambda card, weights: card.write_bytes(b"\xff\xfe not json"), ".json", "is unusable"),
        (lambda card, weights: card.write_text('{"format": "x"}'), ".json", "not a policy card"),
        (lambda card, weights: card.write_text("[1, 2]"), ".json", "not a policy card"),
    ],
)
def test_a_damaged_safe_policy_is_one_line(run: Path, damage, named: str, problem: str) -> None:
    card = run / BEST_POLICY
    damage(card, card.with_suffix(".pt"))
    with pytest.raises(ModelFileError) as e:
        make_agent(f"ppo:{card}")
    one_line_naming(e, card.with_suffix(named), problem)


def test_a_card_for_another_game_or_shape_is_one_line(run: Path) -> None:
    card_path = run / BEST_POLICY
    card = json.loads(card_path.read_text())
    for field, value, problem in [
        ("observation_size", 99, "grove_env has 125"),
        ("net_arch", [32, 0], "net_arch"),
        ("features", "pixels", "features"),
        ("format_version", 2, "newer grove-env"),
    ]:
        card_path.write_text(json.dumps({**card, field: value}))
        with pytest.raises(ModelFileError) as e:
            make_agent(f"ppo:{card_path}")
        one_line_naming(e, card_path, problem)
    card_path.write_text(json.dumps({**card, "net_arch": [64, 64]}))  # checksum still fits
    with pytest.raises(ModelFileError) as e:
        make_agent(f"ppo:{card_path}")
    one_line_naming(e, card_path.with_suffix(".pt"), "do not fit its card")


def test_missing_paths_are_one_line(tmp_path: Path) -> None:
    for spec, problem in [
        (f"ppo:{tmp_path / 'nothing.json'}", "no policy at"),
        (f"ppo:{tmp_path}", "holds no intact"),
        (f"ppo:{tmp_path / 'notes.txt'}", "is not a policy"),
        (f"sb3:{tmp_path / 'nothing.zip'}", "no model file at"),
    ]:
        with pytest.raises(ModelFileError) as e:
            make_agent(spec)
        one_line_naming(e, tmp_path, problem)


def test_a_truncated_or_garbage_zip_is_one_line(run: Path) -> None:
    truncate(run / BEST)
    with pytest.raises(ModelFileError) as e:
        make_agent(f"sb3:{run / BEST}")
    one_line_naming(e, run / BEST, "corrupt or unreadable")
    ckpt = checkpoints(run)[0]
    truncate(ckpt / "model.zip")
    with pytest.raises(CheckpointError) as e:
        checkpoint.read_tensors(ckpt / "model.zip")
    one_line_naming(e, ckpt / "model.zip", "truncated")
    older = checkpoints(run)[1]
    rewrite_member(older / "model.zip", "policy.pth", b"not a tensor file")
    with pytest.raises(CheckpointError) as e:
        checkpoint.read_tensors(older / "model.zip")
    one_line_naming(e, older / "model.zip", "corrupt or unreadable")
    (older / "state.json").write_text("{not json")
    with pytest.raises(CheckpointError) as e:
        checkpoint.read_state(older)
    one_line_naming(e, older, "state.json is corrupt")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
CARD_FIELDS = st.fixed_dictionaries(
    {"format": st.just("grove-policy"), "format_version": st.just(1)},
    optional={k: JSON for k in ("features", "net_arch", "activation", "rules", "step")},
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    card=st.binary(max_size=300)
    | JSON.map(json.dumps).map(str.encode)
    | CARD_FIELDS.map(json.dumps).map(str.encode),
    weights=st.binary(max_size=300),
)
def test_random_bytes_and_json_as_a_policy_are_one_line(
    tmp_path: Path, card: bytes, weights: bytes
) -> None:
    (tmp_path / "p.json").write_bytes(card)
    (tmp_path / "p.pt").write_bytes(weights)
    with pytest.raises(ModelFileError) as e:
        make_agent(f"ppo:{tmp_path / 'p.json'}")
    assert "\n" not in str(e.value)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    weights=st.binary(max_size=400) | st.builds(pickle_bomb, st.just(Path("/nonexistent/x"))),
    net_arch=st.lists(st.integers(1, 10**9), min_size=1, max_size=3),
)
def test_random_weights_under_a_valid_card_are_one_line(
    tmp_path: Path, weights: bytes, net_arch: list[int]
) -> None:
    card = PolicyCard("culprit_odds", tuple(net_arch), "relu", ("classic",), (4,))
    sha = hashlib.sha256(weights).hexdigest()  # the checksum fits: the bytes reach torch
    (tmp_path / "p.json").write_text(json.dumps(card.to_json(sha)))
    (tmp_path / "p.pt").write_bytes(weights)
    with pytest.raises(ModelFileError, match="do not fit its card") as e:
        make_agent(f"ppo:{tmp_path / 'p.json'}")
    assert "\n" not in str(e.value)


# ------------------------------------------------------------- fall-back
def test_resume_falls_back_past_a_damaged_latest_checkpoint(run: Path) -> None:
    newest, older = checkpoints(run)[:2]
    final_step = checkpoint.read_state(newest)["step"]
    truncate(newest / "model.zip")
    (run / "final_eval.json").unlink()  # not complete: train on from the older one
    done = train("--resume", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    warning = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and newest.name in warning[0] and "model.zip" in warning[0]
    assert f"from checkpoint {older.name}" in done.stdout
    assert checkpoint.read_state(checkpoints(run)[0])["step"] == final_step


def test_all_checkpoints_damaged_is_an_error(run: Path, capsys: pytest.CaptureFixture) -> None:
    for ckpt in checkpoints(run):
        (ckpt / "pool.pt").write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="no intact checkpoint"):
        checkpoint.latest_intact(run)
    warned = capsys.readouterr().err.count("warning: skipping damaged checkpoint")
    assert warned == len(checkpoints(run)) >= 2


def test_ppo_run_dir_without_best_takes_the_newest_intact_checkpoint(run: Path) -> None:
    (run / BEST_POLICY).unlink()
    newest, older = checkpoints(run)[:2]
    truncate(newest / POLICY)
    with pytest.warns(UserWarning, match=f"skipping checkpoint {newest.name}"):
        agent = make_agent(f"ppo:{run}")
    assert agent.card is not None
    assert agent.card.step == checkpoint.read_state(older)["step"]


# ------------------------------------------------------------- playing
def test_a_policy_plays_without_stable_baselines3(trained: Path) -> None:
    script = (
        "import sys\n"
        "sys.modules['stable_baselines3'] = None\n"
        "sys.modules['sb3_contrib'] = None\n"
        "from grove_env.agents.base import make_agent\n"
        "from grove_env.agents.arena.tournament import run_tournament\n"
        f"agent = make_agent('ppo:{trained}', seed=0)\n"
        f"result = run_tournament(['ppo:{trained}', 'random', 'random', 'random'], games=4)\n"
        "assert 'stable_baselines3.common' not in sys.modules\n"
        "print('played', result.games, agent.card.features)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=ENV
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"played 4 {load_config(trained / 'config.yaml').features}"


def game_observations(games: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision in random classic 4-player games."""
    rng = np.random.default_rng(0)
    obs, masks = [], []
    for seed in range(games):
        game = Game("classic", 4, seed=seed)
        encoder = ObservationEncoder(game.rules, 4)
        while not game.terminal and game.round < 100:
            mask = np.zeros(10, bool)
            mask[game.legal_actions()] = True
            obs.append(encoder.encode(game, game.current_player))
            masks.append(mask)
            game.apply_action(int(rng.choice(game.legal_actions())))
    return np.array(obs, np.float32), np.array(masks)


def test_the_safe_policy_chooses_exactly_as_the_zip(trained: Path, tmp_path: Path) -> None:
    obs, masks = game_observations(20)
    noise = np.random.default_rng(1).random((500, obs.shape[1])).astype(np.float32)
    obs, masks = np.concatenate([obs, noise]), np.concatenate([masks, masks[:500]])
    for safe_spec, zip_spec in [
        (f"ppo:{trained}", f"sb3:{trained / BEST}"),
        (f"ppo:{checkpoints(trained)[0]}", f"sb3:{checkpoints(trained)[0] / 'model.zip'}"),
    ]:
        for deterministic in (True, False):
            safe = make_agent(safe_spec, seed=3, deterministic=deterministic)
            zipped = make_agent(zip_spec, seed=3, deterministic=deterministic)
            np.testing.assert_array_equal(safe.act_batch(obs, masks), zipped.act_batch(obs, masks))
    # A run from before the safe format, upgraded from its zip's tensors, plays the same.
    old = Path(shutil.copytree(trained, tmp_path / "old"))
    (old / BEST_POLICY).unlink()
    assert checkpoint.upgrade_best(old, load_config(old / "config.yaml"))
    np.testing.assert_array_equal(
        make_agent(f"ppo:{old}").act_batch(obs, masks),
        make_agent(f"sb3:{trained / BEST}").act_batch(obs, masks),
    )
