"""Training throughput: the SB3 backend against the batched one, same network, batch and epochs.

    python benchmarks/train_throughput.py [--config configs/default.yaml] [--rollouts 2]
        [--repeats 3] [--num-envs N --n-steps T] [--sb3-threads 1] [--batched-threads 2]
        [--device cpu|cuda] [--backends sb3 batched] [--overlap] [--json PATH]

Both backends train the config's network (``net_arch``, ``activation``, ``features``)
with its ``batch_size`` and ``n_epochs`` and the same learner steps per rollout (the
config's ``num_envs`` x ``n_steps``, or ``--num-envs`` x ``--n-steps``; the batched
backend may step more games for fewer steps, ``--batched-num-envs``), from random weights,
in two opponent settings:

* ``self_play``: every opponent seat is the learner's live weights;
* ``default_mix``: the config's opponent mix (``configs/default.yaml``: random, the
  heuristic, the gauntlet's styles, live and pool).

``--shared-trunk`` gives the batched backend's value one linear layer on the policy's
last hidden layer (``shared_trunk: true``) instead of a network of its own.
``--learn-from live_seats`` has the batched backend learn from every seat that the live
weights play (``learn_from: live_seats``, :mod:`grove_env.training.batched.lanes`): in
self-play each engine step is then a learner step. Without it the batched backend learns
from what the config says (``configs/default.yaml``: ``live_seats``). A learner step is
one decision that the update learns from, in both backends and both modes.

Each figure is measured in a fresh interpreter (a spawned process), so that neither
backend inherits the torch thread pool or the allocator's state of the other. For each:
learner steps per second of collection alone and of whole iterations
(collection and the PPO update), the median of ``--repeats`` timings of ``--rollouts``
rollouts each, after one rollout of warm-up; and for the batched backend the process's
CPU seconds per wall-clock second over its timings (2.0: both cores busy). Each backend
runs with its own torch thread count (stated in the output): SB3's forward passes are of
a few hundred rows, where more threads only add overhead; the batched backend's are of
the whole batch. ``--json PATH`` writes ``{"sb3": {"self_play": ..., "default_mix":
...}, "batched": {...}, "ratio": {...}, "device": ...}``, each entry ``{"collect":
steps/s, "iteration": steps/s}``.

``--overlap`` has the batched backend collect the next rollout in a second process while
it updates (``overlap: true``, :mod:`grove_env.training.batched.remote`); its CPU seconds
count the collector process's too.

``--device cuda`` puts both learners on the GPU (the games stay on the CPU, as in a run
with ``device: cuda``); ``--backends batched`` measures one backend alone (no ratio).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from grove_env.agents.learned.actor import Actor
from grove_env.training.batched.trainer import BatchedTrainer
from grove_env.training.config import TrainConfig, load_config
from grove_env.training.run.device import DeviceError, resolve_device
from grove_env.training.sb3.builders import build_env, build_model

SETTINGS = ("self_play", "default_mix")


def setting(
    cfg: TrainConfig, name: str, backend: str, threads: int, shape: tuple[int, int]
) -> TrainConfig:
    """The config of one measurement: no imitation, ``shape`` games x steps per rollout,
    whole games only (``round_games`` 0: the SB3 backend has no round games, and both
    backends play the same games)."""
    update: dict = {"imitate": None, "backend": backend, "torch_threads": threads}
    update["round_games"] = 0.0
    update["num_envs"], update["n_steps"] = shape
    if name == "self_play":
        mix = {k: 0.0 for k in cfg.opponents.weights()}
        update["opponents"] = cfg.opponents.model_validate({**mix, "live": 1.0})
    return cfg.model_copy(update=update)


def timed(
    run: Callable[[], None], repeats: int, more_cpu: Callable[[], float] = lambda: 0.0
) -> tuple[float, float]:
    """Median wall seconds of ``run`` and CPU seconds per wall second: the process's and
    ``more_cpu``'s (a counter of another process's CPU seconds, the collector's)."""
    walls, cpu, wall = [], 0.0, 0.0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), sum(os.times()[:2]) + more_cpu()
        run()
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()  # the GPU's queued work belongs to this timing
        walls.append(time.perf_counter() - t0)
        cpu += sum(os.times()[:2]) + more_cpu() - c0
        wall += walls[-1]
    return statistics.median(walls), cpu / wall


def sb3_rates(cfg: TrainConfig, rollouts: int, repeats: int) -> dict[str, float]:
    torch.set_num_threads(cfg.torch_threads)
    env = build_env(cfg)
    model = build_model(cfg, env, resolve_device(cfg.device))
    env.opponents.live = Actor.of(model.policy)
    _, callback = model._setup_learn(10**12, None)  # resets the env, as learn() does

    def collect() -> None:
        for _ in range(rollouts):
            model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)

    size = cfg.rollout_size * rollouts
    collect()  # warm-up
    collect_s, collect_cpu = timed(collect, repeats)
    model.learn(cfg.rollout_size, reset_num_timesteps=False)  # warm-up
    whole_s, whole_cpu = timed(lambda: model.learn(size, reset_num_timesteps=False), repeats)
    return {
        "collect": size / collect_s,
        "iteration": size / whole_s,
        "cpu_per_wall": whole_cpu,
        "threads": cfg.torch_threads,
    }


def batched_rates(cfg: TrainConfig, rollouts: int, repeats: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        trainer = BatchedTrainer(cfg, Path(folder), device=resolve_device(cfg.device))
        trainer.bar = None

        def collect() -> None:
            for _ in range(rollouts):
                trainer.collect(lambda n: True)

        def iterate() -> None:
            for _ in range(rollouts):
                trainer.iterate()

        def collector_cpu() -> float:
            return 0.0 if trainer.remote is None else trainer.remote.cpu_seconds

        size = cfg.rollout_size * rollouts
        collect()  # warm-up
        collect_s, collect_cpu = timed(collect, repeats, collector_cpu)
        trainer.iterate()  # warm-up
        whole_s, whole_cpu = timed(iterate, repeats, collector_cpu)
        trainer.writer.close()
        trainer.close()
    return {
        "collect": size / collect_s,
        "iteration": size / whole_s,
        "cpu_per_wall": whole_cpu,
        "collect_cpu_per_wall": collect_cpu,
        "threads": cfg.torch_threads,
    }


def measured(backend: str, cfg: TrainConfig, rollouts: int, repeats: int) -> dict:
    """One backend's figures, measured in this process."""
    return {"sb3": sb3_rates, "batched": batched_rates}[backend](cfg, rollouts, repeats)


def in_fresh_process(*args: object) -> dict:
    """:func:`measured` in a new interpreter, so that neither backend runs in a process
    whose torch thread pool, allocator and caches the other one has already shaped (each
    sets its own thread count)."""
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        return pool.submit(measured, *args).result()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--rollouts", type=int, default=2, help="rollouts per timing")
    p.add_argument("--repeats", type=int, default=3, help="timings per figure (median)")
    p.add_argument("--sb3-threads", type=int, default=1)
    p.add_argument("--batched-threads", type=int, default=2)
    p.add_argument("--num-envs", type=int, default=None, help="games (default: the config's)")
    p.add_argument("--n-steps", type=int, default=None, help="steps (default: the config's)")
    p.add_argument(
        "--batched-num-envs",
        type=int,
        default=None,
        help="games of the batched backend alone (default: as sb3); --n-steps is scaled so "
        "its rollouts hold as many steps",
    )
    p.add_argument(
        "--shared-trunk", action="store_true", help="the batched backend's value on the policy"
    )
    p.add_argument(
        "--learn-from",
        choices=("learner", "live_seats"),
        default=None,
        help="the batched backend's learn_from (live_seats: every live seat's decisions; "
        "default: the config's)",
    )
    p.add_argument(
        "--overlap",
        action="store_true",
        help="the batched backend collects the next rollout in a second process during "
        "the update (overlap: true)",
    )
    p.add_argument("--settings", nargs="+", choices=SETTINGS, default=list(SETTINGS))
    p.add_argument("--backends", nargs="+", choices=("sb3", "batched"), default=["sb3", "batched"])
    p.add_argument(
        "--device", choices=("cpu", "cuda"), default="cpu", help="the learners' torch device"
    )
    p.add_argument("--json", default=None, metavar="PATH", help="write the figures as JSON")
    args = p.parse_args(argv)
    base = load_config(args.config)
    learn_from = args.learn_from or base.learn_from
    shape = (args.num_envs or base.num_envs, args.n_steps or base.n_steps)
    base = base.model_copy(
        update={"num_envs": shape[0], "n_steps": shape[1], "device": args.device}
    )
    try:
        resolve_device(args.device)
    except DeviceError as e:
        p.error(str(e))
    out: dict[str, dict] = {"sb3": {}, "batched": {}, "ratio": {}}
    out["batched_settings"] = {
        "learn_from": learn_from,
        "shared_trunk": args.shared_trunk,
        "overlap": args.overlap,
    }
    out["device"] = args.device
    threads = {"sb3": args.sb3_threads, "batched": args.batched_threads}
    games = args.batched_num_envs or shape[0]
    if (shape[0] * shape[1]) % games:
        p.error(f"--batched-num-envs must divide the rollout of {shape[0] * shape[1]} steps")
    shapes = {"sb3": shape, "batched": (games, shape[0] * shape[1] // games)}
    for name in args.settings:
        for backend in dict.fromkeys(args.backends):  # each once, in the order given
            cfg = setting(base, name, backend, threads[backend], shapes[backend])
            if backend == "batched":
                cfg = cfg.model_copy(
                    update={
                        "shared_trunk": args.shared_trunk,
                        "learn_from": learn_from,
                        "overlap": args.overlap,
                    }
                )
            rates = in_fresh_process(backend, cfg, args.rollouts, args.repeats)
            out[backend][name] = rates
            print(
                f"{name:12s} {backend:8s} collection {rates['collect']:9.0f} steps/s   "
                f"collect+update {rates['iteration']:9.0f} steps/s   "
                f"({cfg.num_envs} x {cfg.n_steps}, {rates['threads']} torch threads, "
                f"{'' if args.device == 'cpu' else args.device + ', '}"
                f"{rates['cpu_per_wall']:.2f} CPU s per s)",
                flush=True,
            )
        if set(args.backends) != {"sb3", "batched"}:
            continue
        s, b = out["sb3"][name], out["batched"][name]
        out["ratio"][name] = {k: b[k] / s[k] for k in ("collect", "iteration")}
        r = out["ratio"][name]
        print(
            f"{name:12s} ratio    collection {r['collect']:9.2f}x          "
            f"collect+update {r['iteration']:9.2f}x",
            flush=True,
        )
    print(
        f"({base.rollout_size} steps per rollout, batch {base.batch_size}, "
        f"{base.n_epochs} epochs, net {base.net_arch} {base.activation}, features "
        f"{base.features}; median of {args.repeats} timings of {args.rollouts} rollouts; "
        "each backend in a fresh process; "
        f"the batched backend learns from: {learn_from}"
        f"{', shared trunk' if args.shared_trunk else ''}"
        f"{', overlap (staleness 1 rollout)' if args.overlap else ''}; "
        f"load average {os.getloadavg()[0]:.2f})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
