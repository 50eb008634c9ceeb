"""Plug-in discovery: lanes, extractors and embedders found through entry points.

Every plug-in, Cairn's own included, is an entry point of an installed distribution in
one of three groups::

    [project.entry-points."cairn.lanes"]        claims = "cairn.recall.lanes.claims:ClaimsLane"
    [project.entry-points."cairn.extractors"]   ...
    [project.entry-points."cairn.embedders"]    ...

The built-ins are registered in Cairn's own ``pyproject.toml`` exactly as a third party
registers its own, so there is one path for both (``pip install`` writes them to the
distribution's ``entry_points.txt``). An entry point names an object satisfying the
group's protocol, or a class (or other callable) that builds one when called with no
arguments.

Contract:

* Lazy and cached. Importing this module reads nothing; the installed distributions
  are scanned the first time a group is asked for, once per process (a ``cairn recall``
  process runs per user prompt, so start-up stays cheap), and a plug-in's module is
  imported only when that plug-in is asked for by name. :func:`clear_cache` forgets
  both (tests, or a process that installs plug-ins while running). No lock: two
  threads asking first at the same time may both scan, or both build a plug-in, and
  one result is kept — harmless, since plug-ins hold no per-process state Cairn
  relies on.
* A broken third-party plug-in fails only when it is used, with a
  :class:`PluginError` naming it and its distribution; unrelated commands and the other
  plug-ins keep working. A distribution whose entry-point metadata cannot be read is
  left out and reported by :func:`problems`.
* A built-in missing from a group means Cairn's own package metadata is not installed:
  asking for that group raises a :class:`PluginError` saying how to install it.
* Two distributions registering the same name in one group is refused when that name
  is asked for (which one would win depends on ``sys.path`` order, so neither does);
  so is a plug-in whose ``name`` is not the name it is registered under.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .errors import PluginError as PluginError  # re-exported: `cairn.plugins.PluginError` keeps working

LANE_GROUP = "cairn.lanes"
EXTRACTOR_GROUP = "cairn.extractors"
EMBEDDER_GROUP = "cairn.embedders"

# The groups (each named cairn.<kind>s, which PluginError's messages rely on).
GROUPS = (LANE_GROUP, EXTRACTOR_GROUP, EMBEDDER_GROUP)
# What Cairn itself registers in each group: name -> entry-point value, the very table of
# its pyproject.toml (tests/plugins keeps the two equal). Asking for one of these by name
# loads it from here without scanning the installed metadata: a `cairn recall` process
# runs per prompt, and the scan (with importing importlib.metadata) costs more than the
# recall itself. Listing a group still scans, so third-party plug-ins are always found;
# a third party cannot take a built-in's name.
BUILTINS: dict[str, dict[str, str]] = {
    LANE_GROUP: {
        "claims": "cairn.recall.lanes.claims:ClaimsLane",
        "episodes": "cairn.recall.lanes.episodes:EpisodesLane",
        "semantic": "cairn.recall.lanes.semantic:SemanticLane",
        "semantic-episodes": "cairn.recall.lanes.semantic:SemanticEpisodesLane",
    },
    EXTRACTOR_GROUP: {
        "rules": "cairn.learn.extractors.rules:RulesExtractor",
        "model": "cairn.learn.extractors.model:ModelExtractor",
    },
    EMBEDDER_GROUP: {
        "minilm": "cairn.embed.minilm:MiniLM",
    },
}
OWN_DISTRIBUTION = "cairn-memory"
INSTALL_HINT = "install Cairn as a package (`pip install -e .` in a checkout, or `make test`)"


class Registered(NamedTuple):
    """One entry point as found in the installed metadata (nothing imported yet)."""

    group: str
    name: str
    value: str  # "module:attribute"
    dist: str  # the distribution that registered it
    clash: tuple[str, ...] = ()  # other distributions registering the same name

    def describe(self) -> str:
        return f"{self.value} from distribution {self.dist!r}"


_scanned: dict[str, dict[str, Registered]] | None = None
_problems: list[str] = []
_loaded: dict[tuple[str, str], object] = {}


def registered(group: str) -> dict[str, Registered]:
    """The plug-ins registered in ``group`` by name, in discovery order. Imports none."""
    found = _scan().get(group, {})
    missing = [name for name in BUILTINS.get(group, {}) if name not in found]
    if missing:
        raise PluginError(group, missing[0], f"built-in not registered: Cairn's package metadata is missing; {INSTALL_HINT}")
    return found


def names(group: str) -> tuple[str, ...]:
    """The registered names of ``group``: Cairn's built-ins first, then the others sorted."""
    found = registered(group)
    builtin = tuple(BUILTINS.get(group, {}))
    return (*builtin, *sorted(n for n in found if n not in builtin))


def is_builtin(group: str, name: str) -> bool:
    """Whether ``name`` is one of Cairn's own plug-ins of ``group`` (no scan needed)."""
    return name in BUILTINS.get(group, {})


def load(group: str, name: str, protocol: type | None = None) -> Any:
    """The plug-in ``name`` of ``group``, imported and built once per process.

    ``protocol`` (a runtime-checkable Protocol) is checked on the built object. Every
    failure is a :class:`PluginError` naming the plug-in and where it came from."""
    key = (group, name)
    if key in _loaded:
        return _loaded[key]
    if is_builtin(group, name):
        plugin = _build(Registered(group, name, BUILTINS[group][name], OWN_DISTRIBUTION), protocol)
        _loaded[key] = plugin
        return plugin
    entry = registered(group).get(name)
    if entry is None:
        known = ", ".join(names(group)) or "none installed"
        raise PluginError(group, name, f"not installed (known: {known})")
    if entry.clash:
        dists = ", ".join(repr(d) for d in sorted((entry.dist, *entry.clash)))
        raise PluginError(group, name, f"registered by more than one distribution ({dists}); uninstall one")
    plugin = _build(entry, protocol)
    _loaded[key] = plugin
    return plugin


def problems() -> tuple[str, ...]:
    """Distributions whose entry-point metadata could not be read (left out of discovery)."""
    _scan()
    return tuple(_problems)


def clear_cache() -> None:
    """Forget the scan and every loaded plug-in: the next request scans again."""
    global _scanned
    _scanned = None
    _problems.clear()
    _loaded.clear()


def _build(entry: Registered, protocol: type | None) -> object:
    try:
        target = _import(entry.value)
        ready = protocol is not None and not isinstance(target, type) and isinstance(target, protocol)
        plugin = target if ready or not callable(target) else target()
    except Exception as err:  # noqa: BLE001 - any failure inside a plug-in is reported as that plug-in's
        raise PluginError(entry.group, entry.name, f"failed to load ({entry.describe()}): {type(err).__name__}: {err}") from err
    if protocol is not None and not isinstance(plugin, protocol):
        raise PluginError(entry.group, entry.name, f"{entry.describe()} does not implement {protocol.__name__}")
    own = getattr(plugin, "name", entry.name)
    if own != entry.name:
        # Traces, explain and stored vectors record the object's name; it must be the one users ask for.
        raise PluginError(entry.group, entry.name, f"{entry.describe()} calls itself {own!r}")
    return plugin


def _import(value: str) -> object:
    import importlib

    module_name, _, attribute = value.partition(":")
    target: object = importlib.import_module(module_name.strip())
    for part in filter(None, attribute.strip().split(".")):
        target = getattr(target, part)
    return target


def _scan() -> dict[str, dict[str, Registered]]:
    """Read every installed distribution's entry points of Cairn's groups, once."""
    global _scanned
    if _scanned is not None:
        return _scanned
    # Imported here, not at module level: importlib.metadata costs more to import than
    # most commands take to run, and only plug-in lookups need it.
    from importlib.metadata import distributions

    scanned: dict[str, dict[str, Registered]] = {group: {} for group in GROUPS}
    seen: set[str] = set()
    for dist in distributions():
        try:
            ours = [ep for ep in dist.entry_points if ep.group in scanned]
            if not ours:
                continue
            dist_name = dist.name
        except Exception as err:  # noqa: BLE001 - one unreadable distribution must not hide the others
            _problems.append(f"{_where(dist)}: {type(err).__name__}: {err}")
            continue
        key = _normalise(dist_name)
        if key in seen:
            continue  # the same distribution found again further down sys.path: the first wins, as for imports
        seen.add(key)
        for ep in ours:
            group = scanned[ep.group]
            if ep.name in group:
                first = group[ep.name]
                group[ep.name] = Registered(first.group, first.name, first.value, first.dist, (*first.clash, dist_name))
            else:
                group[ep.name] = Registered(ep.group, ep.name, ep.value, dist_name)
    _scanned = scanned
    return scanned


def _normalise(name: str) -> str:
    return "".join("-" if c in "_." else c for c in name.lower())


def _where(dist: object) -> str:
    path = getattr(dist, "_path", None)
    return str(path) if path is not None else repr(dist)
