"""Use the environment from other libraries: each script of ``examples/`` at smoke size.

``grove_v1`` is a standard PettingZoo AEC env with flat, fixed-shape infos, so the
multi-agent suites take it as it is. Each suite is an optional extra; a suite that is
not installed is skipped with the line that installs it:

=================  =====================================  ===================================
suite              example                                 install
=================  =====================================  ===================================
CleanRL-style PPO  ``examples/cleanrl_ppo.py``             ``pip install -e ".[train]"``
Tianshou           ``examples/tianshou_dqn.py``            ``pip install -e ".[suites]"``
TorchRL            ``examples/torchrl_rollout.py``         ``pip install -e ".[suites]"``
Ray RLlib          ``examples/rllib_ppo.py``               ``pip install -e ".[rllib]"``
OpenSpiel, Shimmy  ``examples/openspiel_shimmy.py``        ``pip install -e ".[openspiel]"``
=================  =====================================  ===================================
"""

from __future__ import annotations

import importlib.util

from steps import sh

EXAMPLES = [  # script, the modules it needs, the extra that installs them, smoke-size flags
    ("cleanrl_ppo.py", ["torch"], "train",
     ["--total-timesteps", "4096", "--num-envs", "64", "--num-steps", "16", "--eval-games", "32"]),
    ("tianshou_dqn.py", ["tianshou"], "suites",
     ["--epochs", "1", "--steps-per-epoch", "128", "--eval-episodes", "8"]),
    ("torchrl_rollout.py", ["torchrl"], "suites", ["--steps", "300"]),
    ("rllib_ppo.py", ["ray"], "rllib", ["--iterations", "2", "--batch", "400"]),
    ("openspiel_shimmy.py", ["pyspiel", "shimmy"], "openspiel", ["--games", "8"]),
]  # fmt: skip

for script, modules, extra, flags in EXAMPLES:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        print(f"skipped examples/{script}: {', '.join(missing)} not installed "
              f"(pip install -e \".[{extra}]\")")  # fmt: skip
        continue
    sh("python", f"examples/{script}", *flags)
