"""The agent protocol and the registry that turns specs such as ``"heuristic"`` into agents.

An agent decides from the observation dict that ``grove_v1`` gives a seat
(``{"observation": float32[125], "action_mask": int8[10]}``) and from nothing else;
to read it, agents use the engine's public decoder :func:`grove_env.observation.decode`.
The observation is the seat's whole information state, so baseline agents are
stateless: ``reset()`` exists for agents that keep memory (a human's screen, a
recurrent policy) and is called between games.

Specs (:data:`SPEC_HELP`, for command lines' ``--help``): ``random``, ``greedy``,
``heuristic``, ``human``, ``ppo:RUN`` (a policy saved by ``train.py``, loaded without
running code), ``zoo:<rules>-<n>p`` (the policy shipped for a table) and ``sb3:PATH``
(a raw stable-baselines3 zip: loading it can run code).
A spec may carry options after a colon for agents that take them, e.g. ``ppo:runs/x``.

**Agents from other packages** (plugins): an installed distribution that declares an
entry point in the group ``grove_env.agents`` (:data:`PLUGIN_GROUP`), e.g. in its
``pyproject.toml``::

    [project.entry-points."grove_env.agents"]
    myagent = "mypkg:make_agent"

makes ``myagent`` (and ``myagent:ARG``) a spec everywhere specs are taken: the gauntlet,
the tournament, the league, ``grove-play``, the analysis and the web page's list.
``make_agent(arg, seed=None)`` returns an agent (anything with ``act``; ``reset``,
``seed``, ``act_batch`` and ``deterministic`` are used where present). A plugin is
imported only when its spec is used; one that cannot be imported, whose factory has
another signature, that returns no agent, or that raises in a move fails with a
:class:`PluginError`, one line naming the plugin, and the other agents play on.
A plugin cannot replace a built-in name (it is skipped, see :func:`plugin_notes`).

>>> agent = make_agent("random", seed=0)
>>> agent.name
'random'
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from grove_env.messages import describe

P = TypeVar("P")


@runtime_checkable
class Agent(Protocol):
    """Anything that can take a seat: a name, ``reset()`` between games, ``act()``."""

    name: str

    def reset(self) -> None:
        """Forget anything kept from the previous game."""

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """A legal action (one whose ``action_mask`` entry is 1) for this observation."""
        ...


class BaseAgent:
    """Convenience base: a no-op ``reset`` and a batched ``act_batch`` that loops ``act``.

    Batched callers (the vector environment's opponent seats) pass ``K`` observation
    rows and masks and get ``K`` actions back; agents that can do better override it.
    """

    name = "agent"

    deterministic = False
    """Whether the agent decides from the observation alone, the same way every time
    (no randomness, no memory): then one object may play many games at once, and a
    tournament lets it decide their positions in ``act_batch`` calls."""

    def reset(self) -> None:
        return None

    def seed(self, seed: int | None) -> None:
        """Re-seed any randomness (optional: tournaments call it per game if present)."""
        return None

    def act(self, observation: dict[str, np.ndarray]) -> int:  # pragma: no cover
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for ``observations[K, 125]`` with ``masks[K, 10]``, as ``int64[K]``."""
        return np.array(
            [self.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)],
            dtype=np.int64,
        )


AgentFactory = Callable[..., Agent]
TableCheck = Callable[[str | None, str, int], str | None]

# name -> "module:attribute" of a factory ``f(arg: str | None, seed: int | None, **kw)``;
# imported lazily so that, say, torch is only needed for ``ppo:``.
_REGISTRY: dict[str, str | AgentFactory] = {
    "random": "grove_env.agents.scripted.random_agent:make",
    "greedy": "grove_env.agents.scripted.greedy:make",
    "heuristic": "grove_env.agents.heuristic.search:make",
    "heuristic-trust": "grove_env.agents.trust.agent:make",
    "human": "grove_env.agents.cli.human:make",
    "ppo": "grove_env.agents.learned.ppo:make",
    "sb3": "grove_env.agents.learned.sb3:make",
    "zoo": "grove_env.agents.learned.ppo:make_zoo",
    "stack-avoider": "grove_env.agents.scripted.styles:make_stack_avoider",
    "piler": "grove_env.agents.scripted.styles:make_piler",
    "follower": "grove_env.agents.scripted.styles:make_follower",
    "contrarian": "grove_env.agents.scripted.styles:make_contrarian",
    "bluffer": "grove_env.agents.scripted.styles:make_bluffer",
    "cfr": "grove_env.agents.learned.cfr_agent:make",
    "cfr-round": "grove_env.agents.learned.cfr_agent:make_round",
    "text": "grove_env.agents.heuristic.text_reader:make",
}

# name -> "module:attribute" of ``check(arg, rules, num_players) -> str | None`` for the
# agents that play only some tables: why the agent cannot sit at that table (None: it can).
_TABLE_CHECKS: dict[str, str | TableCheck] = {
    "cfr": "grove_env.agents.learned.cfr_agent:table_refusal",
    "cfr-round": "grove_env.agents.learned.cfr_agent:round_table_refusal",
    "zoo": "grove_env.agents.learned.policy_files:zoo_table_refusal",
}

SPEC_HELP = """agent specs:
  random, greedy, heuristic, human   the built-in agents
  heuristic-trust   the first heuristic, which trusts the others' accusations
  stack-avoider, piler, follower, contrarian, bluffer   the gauntlet's styles
  cfr        the solved two-player game (CFR+ round by round over the marker
             states), shipped for 2-player tables
  text       the heuristic's rule, played through the text mode (JSON in, move names out)
  cfr-round  the solved two-player round (CFR+, markers reward), the same in every round
  ppo:RUN    a policy saved by train.py: RUN is the run directory it printed, e.g.
             ppo:runs/smoke-s0-<time> (its best policy), or a policy .json in it;
             loads weights only, never runs code from the file;
             plays its most likely move, or samples where its card says play: sample
  zoo:TABLE  the trained policy shipped for a table, e.g. zoo:revised-2p
             (classic-2p..4p, revised-2p..5p); safe format, as ppo: plays it
  sb3:PATH   a raw stable-baselines3 .zip; loading it UNPICKLES it, which CAN RUN
             ARBITRARY CODE: only for files you made or trust"""


def register_agent(
    name: str, factory: AgentFactory | str, tables: TableCheck | str | None = None
) -> None:
    """Add an agent kind: ``factory(arg, seed=..., **kwargs)`` or a ``"module:attr"`` path;
    ``tables(arg, rules, num_players)``, for an agent that plays only some tables, says why
    it cannot play one (``None``: it can; see :func:`table_refusal`)."""
    if not name or ":" in name:
        raise ValueError(f"an agent name is non-empty and has no ':', got {name!r}")
    _REGISTRY[name] = factory
    _TABLE_CHECKS.pop(name, None)
    if tables is not None:
        _TABLE_CHECKS[name] = tables


def agent_names() -> list[str]:
    """The registered agent kinds, the installed plugins' among them."""
    discover_plugins()
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> tuple[str, str | None]:
    """Split a spec into name and argument.

    >>> parse_spec("ppo:runs/a"), parse_spec("random")
    (('ppo', 'runs/a'), ('random', None))
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string, got {spec!r}")
    name, sep, arg = spec.strip().partition(":")
    discover_plugins()
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {agent_names()}")
    if sep and not arg:
        raise ValueError(f"agent spec {spec!r} has a ':' but nothing after it")
    return name, (arg or None)


def parse_options(arg: str | None, params: type[P], agent: str) -> P:
    """``"trust=0.5,noise=0.3"`` -> ``params(trust=0.5, noise=0.3)`` (``None``: the defaults).

    ``params`` is a dataclass of float fields; an unknown key is a ``ValueError`` naming
    ``agent`` and the keys it takes.
    """
    if not arg:
        return params()
    known = {f.name for f in fields(params)}  # type: ignore[arg-type]
    kwargs = {}
    for item in arg.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in known:
            raise ValueError(
                f"{agent} options are key=value pairs with keys {sorted(known)}, got {item!r}"
            )
        kwargs[key] = float(value)
    return params(**kwargs)


def check_params(params: Any, shares: Sequence[str], positive: Sequence[str] = ()) -> None:
    """Refuse a parameter dataclass whose ``shares`` are outside [0, 1] or whose
    ``positive`` fields are not above 0, naming the class and the field."""
    for f in shares:
        v = getattr(params, f)
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{type(params).__name__}.{f} must be in [0, 1], got {v}")
    for f in positive:
        v = getattr(params, f)
        if not v > 0:
            raise ValueError(f"{type(params).__name__}.{f} must be > 0, got {v}")


def _load(target: str | Callable[..., Any]) -> Callable[..., Any]:
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]
    return target


def make_agent(spec: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """Build the agent a spec names (see the module docstring)."""
    name, arg = parse_spec(spec)
    return _load(_REGISTRY[name])(arg, seed=seed, **kwargs)  # type: ignore[no-any-return]


def table_refusal(spec: str, rules: str, num_players: int) -> str | None:
    """Why the agent ``spec`` names cannot play a table of ``rules`` with ``num_players``
    seats, in one line, or ``None`` where it can. Most agents play every table; those that
    do not (``cfr`` ships solutions for two players only) registered a check.

    >>> table_refusal("heuristic", "revised", 5) is None
    True
    >>> table_refusal("cfr", "classic", 4)
    'cfr: no solved strategy ships for classic with 4 players'
    """
    name, arg = parse_spec(spec)
    check = _TABLE_CHECKS.get(name)
    return None if check is None else _load(check)(arg, rules, num_players)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- plugins
PLUGIN_GROUP = "grove_env.agents"
"""The entry-point group in which other packages declare agents."""

_PLUGINS: dict[str, str] = {}  # plugin name -> "module:attr (from dist)", once discovered
_PLUGIN_NOTES: list[str] = []
_discovered = False


class PluginError(RuntimeError):
    """A plugin agent failed: not importable, a wrong factory, no agent, or a move that
    raised. The message is one line that names the plugin."""


def discover_plugins(refresh: bool = False) -> dict[str, str]:
    """Register every installed plugin agent (once; ``refresh`` looks again, for tests
    and after an install) and return ``{name: "module:attr (from dist)"}``. Reading the
    entry points imports no plugin."""
    global _discovered
    if _discovered and not refresh:
        return dict(_PLUGINS)
    for name in _PLUGINS:
        _REGISTRY.pop(name, None)
    _PLUGINS.clear()
    _PLUGIN_NOTES.clear()
    _discovered = True
    for entry in importlib.metadata.entry_points(group=PLUGIN_GROUP):
        dist = getattr(getattr(entry, "dist", None), "name", None)
        where = f"{entry.value} (from {dist})" if dist else entry.value
        if not entry.name or ":" in entry.name or entry.name in _REGISTRY:
            why = "is taken by another agent" if entry.name in _REGISTRY else "is not a name"
            _PLUGIN_NOTES.append(f"plugin agent {entry.name!r} ({where}): its name {why}; skipped")
            continue
        _PLUGINS[entry.name] = where
        _REGISTRY[entry.name] = _plugin_factory(entry.name, entry.value, where)
    return dict(_PLUGINS)


def plugin_notes() -> list[str]:
    """One line for each installed plugin that was skipped (a name already taken)."""
    discover_plugins()
    return list(_PLUGIN_NOTES)


def _plugin_factory(name: str, target: str, where: str) -> AgentFactory:
    """The registry's factory for a plugin: loads it, checks it, wraps its agent."""
    label = f"plugin agent {name!r} ({where})"

    def make(arg: str | None = None, seed: int | None = None, **_: Any) -> Agent:
        try:
            factory = _load(target)
        except Exception as exc:  # whatever the plugin's import raises
            why = f"{type(exc).__name__}: {describe(exc)}"
            raise PluginError(f"{label} cannot be imported: {why}") from None
        try:
            inspect.signature(factory).bind(arg, seed=seed)
        except TypeError as exc:
            why = describe(exc)
            raise PluginError(f"{label} must be a factory f(arg, seed=None): {why}") from None
        except ValueError:  # no signature to read (a builtin): calling it will tell
            pass
        try:
            agent = factory(arg, seed=seed)
        except Exception as exc:
            raise PluginError(f"{label} failed to make an agent: {type(exc).__name__}: "
                              f"{describe(exc)}") from None  # fmt: skip
        if not callable(getattr(agent, "act", None)):
            raise PluginError(f"{label} made a {type(agent).__name__}, not an agent (no act)")
        return PluginAgent(label, agent)

    return make


class PluginAgent(BaseAgent):
    """A plugin's agent, whose failures are :class:`PluginError` s naming the plugin."""

    def __init__(self, label: str, agent: Any) -> None:
        self.label, self.agent = label, agent
        self.name = str(getattr(agent, "name", label))
        self.deterministic = bool(getattr(agent, "deterministic", False))

    def _call(self, what: str, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args)
        except Exception as exc:
            raise PluginError(f"{self.label} failed in {what}: {type(exc).__name__}: "
                              f"{describe(exc)}") from None  # fmt: skip

    def reset(self) -> None:
        if callable(getattr(self.agent, "reset", None)):
            self._call("reset()", self.agent.reset)

    def seed(self, seed: int | None) -> None:
        if callable(getattr(self.agent, "seed", None)):
            self._call("seed()", self.agent.seed, seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self._call("act()", self.agent.act, observation)  # type: ignore[no-any-return]

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if callable(getattr(self.agent, "act_batch", None)):
            return self._call("act_batch()", self.agent.act_batch, observations, masks)  # type: ignore[no-any-return]
        return super().act_batch(observations, masks)
