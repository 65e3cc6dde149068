"""``train.py`` fuzzed: random bytes, random YAML/JSON configs and random ``--set`` values.

Never a traceback, never a hang: each case either passes every check (and reaches a
stub in place of training, so no real run starts) or ends in one line with exit 1 or 2.
Each case is bounded by an alarm.
"""

from __future__ import annotations

import contextlib
import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_train_bad_input import SMOKE, call, one_line

from grove_env.training import front
from grove_env.training.config import TrainConfig

pytestmark = pytest.mark.slow  # hypothesis drives train.py's config checks for many examples

CASE_BOUND_S = 60
"""A case still running after this long counts as hung (a bound, not a speed check)."""


@contextlib.contextmanager
def bounded(seconds: int) -> Iterator[None]:
    """Fail a case that runs past ``seconds`` (a hang) instead of waiting for ever."""

    def hung(signum: int, frame: object) -> None:
        raise AssertionError(f"a fuzz case ran past {seconds} s: it hangs")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> list[TrainConfig]:
    """``front.train`` replaced by a stub: a config that passes every check reaches it."""
    reached: list[TrainConfig] = []

    def stub(cfg: TrainConfig, backend_run: object = None) -> int:
        reached.append(cfg)
        return 0

    monkeypatch.setattr(front, "train", stub)
    return reached


def check_outcome(argv: list[str], reached: list[TrainConfig]) -> None:
    """Either the config passed (and training would start) or one line and exit 1/2."""
    before = len(reached)
    with bounded(CASE_BOUND_S):
        code, _, err = call(*argv)
    if code == 0:
        assert len(reached) == before + 1 and isinstance(reached[-1], TrainConfig)
        assert err == ""
    else:
        assert len(reached) == before
        line = one_line(err)
        kinds = {(1, "error"), (2, "config error"), (2, "usage error")}
        assert (code, line.split(": ")[0]) in kinds, line


FIELDS = st.sampled_from([*TrainConfig.model_fields, "opponents.live", "opponents.nobody"])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
CONFIGS = st.dictionaries(
    st.sampled_from(list(TrainConfig.model_fields)) | st.text(max_size=12), VALUES, max_size=6
)
# Nine levels of eight aliases: a billion leaves if anything expanded it.
BOMB = (
    "net_arch: [&a [1, 1, 1, 1, 1, 1, 1, 1], "
    + ", ".join(f"&{k} [" + ", ".join([f"*{p}"] * 8) + "]" for p, k in zip("abcdefgh", "bcdefghi"))
    + "]\n"
)
FUZZ = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(content=st.binary(max_size=400))
@example(content=b"")
@example(content=BOMB.encode())
def test_fuzz_random_bytes_as_config(tmp_path: Path, no_training: list, content: bytes) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(content)
    check_outcome(["--config", str(path), "--set", f"runs_root={tmp_path / 'runs'}"], no_training)
    assert not (tmp_path / "runs").exists()


@FUZZ
@given(config=CONFIGS, as_json=st.booleans())
def test_fuzz_random_yaml_and_json_configs(
    tmp_path: Path, no_training: list, config: dict, as_json: bool
) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(json.dumps(config) if as_json else yaml.safe_dump(config))
    check_outcome(["--config", str(path), "--set", f"runs_root={tmp_path / 'runs'}"], no_training)


@FUZZ
@given(key=FIELDS | st.text(max_size=10), value=st.text(max_size=60))
@example(key="net_arch", value="[" * 5000)
@example(key="seed", value="9" * 5000)
def test_fuzz_random_set_values(no_training: list, key: str, value: str) -> None:
    check_outcome([*SMOKE, "--set", f"{key}={value}"], no_training)
