"""Not a package: the agents live in ``grove_env.agents`` (see README.md beside this file).

A second import name beside ``grove_env`` would load a second copy of every agent module
(an agent registered on one copy missing from the other), so ``import agents`` stops here
with one line naming the real package.
"""

raise SystemExit(
    "agents/ is only a signpost: import grove_env.agents (pip install grove-env, or -e .)"
)
