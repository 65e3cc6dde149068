"""``train.py`` against hostile input and damaged run files (issue 9, the training part).

Each case calls ``train.main(argv)`` in the test process (output captured) and checks
the whole outcome: the exit code, one line naming the problem and the path, and the
files left as they were. The resumes start from one small real run (a copy per test).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from grove_env.training import front
from grove_env.training.config import TrainConfig
from grove_env.training.run import device
from grove_env.training.run.lock import LOCK

pytestmark = pytest.mark.slow  # train.py runs in subprocesses

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("train_cli", ROOT / "train.py")
assert _spec is not None and _spec.loader is not None
train_cli = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_cli)
SMOKE = ["--config", str(ROOT / "configs" / "smoke.yaml")]


def call(*argv: str) -> tuple[int, str, str]:
    """``train.main(argv)`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = train_cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def one_line(err: str) -> str:
    """The only line of ``err`` (the error); fails if there are more or none."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ----------------------------------------------------------------- new runs
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "does not exist"),
        (b"\xff\xfe\x00garbage\x80", "is not text (not UTF-8)"),
        (b"num_envs: [1, 2\n", "is not valid YAML"),
        (b"- 1\n- 2\n", "must hold a mapping of keys to values"),
        (b"seed: " + b"7" * 5000 + b"\n", "is not valid YAML"),
    ],
)
def test_a_damaged_config_file_is_one_line_and_exit_1(
    tmp_path: Path, content: bytes | None, problem: str
) -> None:
    path = tmp_path / "config.yaml"
    if content is not None:
        path.write_bytes(content)
    code, _, err = call("--config", str(path), "--set", f"runs_root={tmp_path / 'runs'}")
    assert code == 1
    assert one_line(err).startswith(f"error: config file {str(path)!r} {problem}")
    assert not (tmp_path / "runs").exists()


def test_a_python_tag_in_a_config_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "config.yaml"
    path.write_text(f"!!python/object/apply:builtins.open [{str(marker)!r}, w]\n")
    code, _, err = call("--config", str(path))
    assert code == 1
    assert one_line(err).startswith(f"error: config file {str(path)!r} is not valid YAML: ")
    assert not marker.exists()


def test_a_folder_as_config_file(tmp_path: Path) -> None:
    code, _, err = call("--config", str(tmp_path))
    assert code == 1
    assert one_line(err).startswith(f"error: config file {str(tmp_path)!r} cannot be read")


@pytest.mark.parametrize("name", ["../escape", "a/b", "..\\up", '"nul\\0byte"', '"tab\\there"'])
def test_a_name_cannot_leave_runs_root(tmp_path: Path, name: str) -> None:
    runs = tmp_path / "inner" / "runs"
    code, _, err = call(*SMOKE, "--set", f"runs_root={runs}", "--set", f"name={name}")
    assert code == 2
    assert one_line(err).startswith("config error: name: must be a plain folder name")
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_runs_root(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder\n")
    for root in (blocker, blocker / "runs"):
        code, _, err = call(*SMOKE, "--set", f"runs_root={root}")
        assert code == 1
        line = one_line(err)
        assert line == f"error: cannot make a run directory in {str(root)!r}: Not a directory"
    assert blocker.read_text() == "not a folder\n"
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        code, _, err = call(*SMOKE, "--set", f"runs_root={locked}")
        assert code == 1 and "Permission denied" in one_line(err)
        assert list(locked.iterdir()) == []


def test_cuda_without_cuda_stops_before_the_run_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    code, out, err = call(*SMOKE, "--set", f"runs_root={tmp_path / 'runs'}", "--set", "device=cuda")
    assert code == 1
    assert one_line(err) == (
        "error: device: cuda, but torch finds no CUDA device here; use device: cpu (or auto)"
    )
    assert out == "" and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("cuda", "used"), [(True, "cuda"), (False, "cpu")])
def test_auto_picks_cuda_where_present_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, cuda: bool, used: str
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    assert front._device(TrainConfig(device="auto")) == used
    assert capsys.readouterr().out == f"device: auto -> {used}\n"
    assert front._device(TrainConfig(device="cpu")) == "cpu"
    assert device.resolve_device("cuda" if cuda else "cpu") == ("cuda" if cuda else "cpu")
    assert capsys.readouterr().out == ""  # only auto is announced


# ----------------------------------------------------------------- resumes
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small run trained to its end (2 checkpoints, no final evaluation), device auto."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    settings_ = ["total_timesteps=2048", "final_eval_games=0", "device=auto"]
    argv = [*SMOKE, "--set", f"run_dir={run_dir}"]
    for s in settings_:
        argv += ["--set", s]
    code, out, err = call(*argv)
    assert code == 0, out + err
    assert "device: auto -> cpu" in out or torch.cuda.is_available()
    return run_dir


@pytest.fixture
def run_dir(finished_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(finished_run, tmp_path / "run"))


def test_the_run_records_the_device_it_used(run_dir: Path) -> None:
    info = json.loads((run_dir / "run.json").read_text())
    assert info["device"] == ("cuda" if torch.cuda.is_available() else "cpu")
    # config.yaml keeps what was asked, so a resume elsewhere chooses again.
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["device"] == "auto"
    assert "resumes" not in info and not (run_dir / LOCK).exists()


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("run.json", b'{"name": "run", "seed', "is corrupt: Unterminated string"),
        ("run.json", b"[1, 2]", "is corrupt: not an object with a list of resumes"),
        ("run.json", b'{"resumes": 3}', "is corrupt: not an object with a list of resumes"),
        ("run.json", b"\xff\xfe", "is corrupt: 'utf-8' codec can't decode"),
        ("metrics.csv", b"step,eval/score\n1024,oops\n", "line 2: eval/score must be a number"),
        ("metrics.csv", b"step,eval/score\nten,1\n", "line 2: step must be a whole number"),
        ("metrics.csv", "step\n1\n\u00b2\n".encode(), "line 3: step must be a whole number"),
        ("metrics.csv", b"step,eval/score\n1,2,3\n", "line 2: wrong number of columns"),
        ("metrics.csv", b"\x80\x81", "cannot be read: 'utf-8' codec can't decode"),
    ],
)
def test_a_damaged_run_file_stops_the_resume_before_any_write(
    run_dir: Path, name: str, content: bytes, problem: str
) -> None:
    (run_dir / name).write_bytes(content)
    before = snapshot(run_dir)
    code, _, err = call("--resume", str(run_dir))
    assert code == 1
    assert one_line(err).startswith(f"error: {str(run_dir / name)!r} {problem}")
    assert snapshot(run_dir) == before


def test_a_bad_setting_in_the_run_config_names_the_file(run_dir: Path) -> None:
    path = run_dir / "config.yaml"
    path.write_text(path.read_text().replace("gamma: 1.0", "gamma: 5"))
    before = snapshot(run_dir)
    code, _, err = call("--resume", str(run_dir))
    assert code == 1
    assert one_line(err) == f"error: {str(path)!r}: gamma: must be <= 1.0, got 5"
    assert snapshot(run_dir) == before


def test_a_failed_resume_records_nothing(run_dir: Path) -> None:
    ckpt = sorted((run_dir / "checkpoints").iterdir())[-1]
    state = json.loads((ckpt / "state.json").read_text())
    state["config"]["num_players"] = 3
    (ckpt / "state.json").write_text(json.dumps(state))
    before = snapshot(run_dir)
    code, _, err = call("--resume", str(run_dir))
    assert code == 1
    assert "does not fit this run's config (num_players: checkpoint 3, run 4)" in one_line(err)
    assert snapshot(run_dir) == before  # no resume entry in run.json, no lock left


def test_a_live_lock_refuses_a_second_writer(run_dir: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (run_dir / LOCK).write_text(f"{holder.pid}\n")
        before = snapshot(run_dir)
        code, _, err = call("--resume", str(run_dir))
        assert code == 1
        assert one_line(err) == (
            f"error: run directory {str(run_dir)!r} is in use by process {holder.pid} "
            f"(lock file {str(run_dir / LOCK)!r}); wait for it to end or stop it"
        )
        assert snapshot(run_dir) == before
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("dead", [True, False])
def test_a_stale_lock_is_taken_over_with_a_warning(run_dir: Path, dead: bool) -> None:
    """A lock whose process has ended, or a damaged lock with no pid in it."""
    if dead:
        gone = subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            check=True,
            capture_output=True,
            text=True,
        )
        (run_dir / LOCK).write_text(gone.stdout)
        why = f"process {int(gone.stdout)} has ended"
    else:
        (run_dir / LOCK).write_bytes("\u00b2\xff".encode())
        why = "it holds no pid"
    code, out, err = call("--resume", str(run_dir))
    assert code == 0, out + err
    assert err == f"warning: taking over the stale lock {str(run_dir / LOCK)!r} ({why})\n"
    assert not (run_dir / LOCK).exists()  # released at the end
    (entry,) = json.loads((run_dir / "run.json").read_text())["resumes"]
    assert entry["from"] == "step_000000002048" and entry["device"] in ("cpu", "cuda")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_final_evaluation_exits_130_and_can_be_finished(
    run_dir: Path, sig: signal.Signals
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "train.py", "--resume", str(run_dir), "--set", "final_eval_games=5000"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("final evaluation:"):
            proc.send_signal(sig)
            break
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert out.endswith(
        "interrupted during the final evaluation (the model and checkpoints are saved)\n"
        f"finish it with: python train.py --resume {run_dir}\n"
    )
    assert not (run_dir / "final_eval.json").exists() and not (run_dir / LOCK).exists()
    code, out, err = call("--resume", str(run_dir), "--set", "final_eval_games=4")
    assert code == 0, out + err
    assert json.loads((run_dir / "final_eval.json").read_text())["spec"].startswith("ppo:")
