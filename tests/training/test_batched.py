"""``backend: batched``: parity with the SB3 backend's runs (its loss: test_batched_loss.py).

The run tests are real subprocesses of ``train.py`` with ``configs/smoke.yaml`` and
``--set backend=batched``: every artefact, ``kill -9`` then ``--resume``, Ctrl-C, the
checkpoint played as ``ppo:``, two runs of one seed alike, NashConv while training,
the warm start; and the throughput benchmark's JSON.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from training_runs import (
    ENV,
    ROOT,
    SMOKE,
    final_step,
    kill_then_resume,
    run_train,
    start_and_wait_for_checkpoint,
)

from grove_env.agents.arena.tournament import run_tournament
from grove_env.agents.base import make_agent
from grove_env.agents.learned.policy_files import latest_checkpoint
from grove_env.training.batched.trainer import BatchedTrainer
from grove_env.training.config import load_config
from grove_env.training.measure.exploit import ROUND
from grove_env.training.run import checkpoint
from grove_env.training.run.network import MODEL_FILE, read_model

pytestmark = pytest.mark.slow  # training runs of the batched backend

torch.set_num_threads(1)
BATCHED = ("--set", "backend=batched")


def smoke(run_dir: Path, *more: str) -> subprocess.CompletedProcess:
    proc = run_train(
        "--config", "configs/smoke.yaml", *BATCHED, "--set", f"run_dir={run_dir}", *more
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    run_dir = tmp_path_factory.mktemp("batched") / "run"
    return run_dir, smoke(run_dir)


def test_a_batched_smoke_run_leaves_every_artefact(smoke_run) -> None:
    run_dir, proc = smoke_run
    for name in (
        "config.yaml",
        "versions.json",
        "run.json",
        "metrics.csv",
        "learning_curve.png",
        "best_policy.json",
        "best_policy.pt",
        "best.json",
        "final_eval.txt",
        "final_eval.json",
        "final_eval.png",
    ):
        assert (run_dir / name).is_file(), name
    assert load_config(run_dir / "config.yaml").backend == "batched"
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None and ckpt.name == checkpoint.checkpoint_name(final_step(4096))
    assert {p.name for p in ckpt.iterdir()} == {
        MODEL_FILE,
        "policy.json",
        "policy.pt",
        "pool.pt",
        "state.json",
    }
    assert set(read_model(ckpt / MODEL_FILE)) == {"actor", "critic", "optimizer", "generator"}
    rows = list(csv.DictReader((run_dir / "metrics.csv").open()))
    assert [int(r["step"]) for r in rows] == [0, 2048, 4096]
    assert all(0.0 <= float(r["eval/win_share_vs_random"]) <= 1.0 for r in rows)
    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {
        "train/loss",
        "train/entropy_loss",
        "train/approx_kl",
        "rollout/ep_rew_mean",
        "rollout/win_share",
        "eval/win_share_vs_heuristic",
        "time/fps",
    } <= tags
    assert "Gauntlet of ppo:" in proc.stdout


def test_the_checkpoint_plays_as_ppo(smoke_run) -> None:
    run_dir, _ = smoke_run
    ckpt = latest_checkpoint(run_dir)
    for spec in (f"ppo:{run_dir}", f"ppo:{ckpt}", f"ppo:{ckpt / 'policy.json'}"):
        agent = make_agent(spec, seed=0)
        masks = np.zeros((6, 10), bool)
        masks[np.arange(6), np.arange(6)] = True
        np.testing.assert_array_equal(
            agent.act_batch(np.zeros((6, 125), np.float32), masks), np.arange(6)
        )
    result = run_tournament([f"ppo:{ckpt}", "random", "random", "random"], games=8, seed=0)
    assert result.games == 8


def test_two_runs_of_one_seed_give_the_same_metrics(smoke_run, tmp_path: Path) -> None:
    first, _ = smoke_run
    second = tmp_path / "again"
    smoke(second)

    def metrics(run: Path) -> list[dict[str, str]]:
        rows = list(csv.DictReader((run / "metrics.csv").open()))
        return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in rows]

    assert metrics(first) == metrics(second)
    a, b = latest_checkpoint(first), latest_checkpoint(second)
    assert (a / "policy.pt").read_bytes() == (b / "policy.pt").read_bytes()


def test_kill_9_then_resume_reaches_the_same_step_count(tmp_path: Path) -> None:
    kill_then_resume(tmp_path / "run", *BATCHED)


def test_a_checkpoint_written_before_foreach_adam_resumes_with_it(tmp_path: Path) -> None:
    cfg = load_config(ROOT / "configs" / "smoke.yaml").model_copy(update={"backend": "batched"})
    trainer = BatchedTrainer(cfg, tmp_path)
    trainer.bar = None
    trainer.iterate()
    ckpt = trainer.save_checkpoint()
    trainer.writer.close()
    state = torch.load(ckpt / MODEL_FILE, weights_only=True)
    assert [g["foreach"] for g in state["optimizer"]["param_groups"]] == [True]
    for group in state["optimizer"]["param_groups"]:
        group["foreach"] = None  # as torch.optim.Adam's default wrote it before
    torch.save(state, ckpt / MODEL_FILE)
    again = BatchedTrainer(cfg, tmp_path, ckpt)
    again.writer.close()
    assert [g["foreach"] for g in again.optimizer.param_groups] == [True]
    saved, loaded = state["optimizer"]["state"], again.optimizer.state_dict()["state"]
    assert saved.keys() == loaded.keys() and saved
    assert all(torch.equal(saved[i][k], loaded[i][k]) for i in saved for k in saved[i])


def test_ctrl_c_saves_a_checkpoint_and_a_damaged_one_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = start_and_wait_for_checkpoint(run_dir, *BATCHED)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "Traceback" not in out and f"--resume {run_dir}" in out
    ckpt = latest_checkpoint(run_dir)
    assert checkpoint.read_state(ckpt)["step"] % SMOKE.rollout_size == 0
    for old in checkpoint.checkpoints(run_dir):
        (old / MODEL_FILE).write_bytes(b"not a torch file")
    damaged = run_train("--resume", str(run_dir))
    assert damaged.returncode == 1 and "no intact checkpoint" in damaged.stderr
    assert "Traceback" not in damaged.stderr


# ----------------------------------------------------------------- NashConv while training
def test_a_run_measures_nashconv_and_keeps_the_least_exploitable(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = smoke(
        run_dir,
        *("--set", "rules=revised", "--set", "num_players=3", "--set", "exploit_every=2048"),
        *("--set", "best_by=nashconv", "--set", "final_eval_games=0", "--set", "device=auto"),
        *("--set", "imitate=greedy", "--set", "imitate_steps=512"),
    )
    assert "imitated greedy: " in proc.stdout and "device: auto -> cpu" in proc.stdout
    assert json.loads((run_dir / "run.json").read_text())["device"] == "cpu"
    rows = list(csv.DictReader((run_dir / "metrics.csv").open()))
    nash = [float(r[ROUND]) for r in rows if r[ROUND]]
    assert [int(r["step"]) for r in rows] == [0, 2048, 4096] and len(nash) == 3
    assert all(0.0 < v < 2.0 for v in nash)
    best = json.loads((run_dir / "best.json").read_text())
    assert best["criterion"] == "nashconv" and best["score"] == pytest.approx(-min(nash), 1e-5)
    assert (run_dir / "nashconv.png").is_file()


def benchmark(*args: str) -> subprocess.CompletedProcess:
    """``benchmarks/train_throughput.py`` on the smoke config, one timing of one rollout."""
    return subprocess.run(
        [sys.executable, "benchmarks/train_throughput.py", "--config", "configs/smoke.yaml"]
        + ["--settings", "self_play", "--repeats", "1", "--rollouts", "1", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )


def test_the_throughput_benchmark_writes_both_backends(tmp_path: Path) -> None:
    out = tmp_path / "rates.json"
    proc = benchmark(
        *("--num-envs", "64", "--n-steps", "16", "--batched-num-envs", "128"),
        *("--batched-threads", "1", "--json", str(out), "--learn-from", "live_seats"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rates = json.loads(out.read_text())
    for backend in ("sb3", "batched"):
        figures = rates[backend]["self_play"]
        assert figures["collect"] > 0 and figures["iteration"] > 0 and figures["threads"] == 1
    ratio = rates["ratio"]["self_play"]
    assert ratio["collect"] == pytest.approx(
        rates["batched"]["self_play"]["collect"] / rates["sb3"]["self_play"]["collect"]
    )
    assert rates["batched_settings"] == {
        "learn_from": "live_seats",
        "shared_trunk": False,
        "overlap": False,
    }
    assert "learns from: live_seats" in proc.stdout
    assert "(128 x 8, 1 torch threads" in proc.stdout and "(64 x 16, 1 torch threads" in proc.stdout


def test_the_throughput_benchmark_measures_one_backend_and_names_a_missing_gpu(
    tmp_path: Path,
) -> None:
    out = tmp_path / "rates.json"
    proc = benchmark(
        "--backends", "batched", "--batched-threads", "1", "--overlap", "--json", str(out)
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rates = json.loads(out.read_text())
    assert rates["sb3"] == {} and rates["ratio"] == {} and rates["device"] == "cpu"
    assert rates["batched"]["self_play"]["iteration"] > 0
    assert rates["batched_settings"]["overlap"] is True
    assert "overlap (staleness 1 rollout)" in proc.stdout
    assert " sb3 " not in proc.stdout and "ratio" not in proc.stdout
    if not torch.cuda.is_available():
        proc = benchmark("--device", "cuda")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.splitlines()[-1] == (
            "train_throughput.py: error: device: cuda, but torch finds no CUDA device here; "
            "use device: cpu (or auto)"
        )


@pytest.mark.parametrize("learn_from", ["learner", "live_seats"])
def test_one_network_on_several_tables(tmp_path: Path, learn_from: str) -> None:
    cfg = SMOKE.model_copy(
        update={
            "backend": "batched",
            "tables": ["classic:2", "revised:3"],
            "num_envs": 32,
            "learn_from": learn_from,
        }
    )
    trainer = BatchedTrainer(cfg, tmp_path)
    assert [(g.game.rules.name, g.num_players, g.num_games) for g in trainer.games] == [
        ("classic", 2, 16),
        ("revised", 3, 16),
    ]
    for _ in range(4):
        assert trainer.iterate()
    assert trainer.step == 4 * cfg.rollout_size
    rows = (cfg.n_steps, 32) if learn_from == "learner" else (32 * 5 + cfg.n_steps * 32,)
    assert trainer.rollout.inputs.shape == (*rows, trainer.card.input_size)
    trainer.writer.close()
    tags = EventAccumulator(str(tmp_path / "tb"))
    tags.Reload()
    shares = [t for t in tags.Tags()["scalars"] if t.startswith("rollout/win_share_vs_")]
    assert shares and all(t.endswith(("@classic:2", "@revised:3")) for t in shares)
