"""Discovery through entry points: built-ins like third parties, lazy, and failures that
name the plug-in without breaking anything else."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cairn import plugins
from cairn.errors import InvalidInput
from cairn.recall.lanes import Lane, lane, lane_names
from cairn.recall.pipeline import LANES, lane_choices

SEMANTIC = ("semantic", "semantic-episodes")  # Cairn's semantic lanes (registered always, used with the extra)
FUSED = ("hybrid", "hybrid-episodes", *SEMANTIC)  # listed after the compositions


def test_the_built_in_lanes_come_from_cairns_own_entry_points(install):
    found = plugins.registered(plugins.LANE_GROUP)
    assert found["claims"].value == "cairn.recall.lanes.claims:ClaimsLane"
    assert found["episodes"].value == "cairn.recall.lanes.episodes:EpisodesLane"
    assert found["claims"].dist == found["episodes"].dist == "cairn-memory"
    assert isinstance(lane("claims"), Lane) and lane("claims").applies_gates
    assert not lane("episodes").applies_gates
    assert lane_choices() == ("claims", "episodes", "all", *FUSED) == tuple(LANES)


def test_a_third_party_lane_is_listed_after_the_built_ins(install):
    install("toy-lanes", {"cairn.lanes": {"pinned": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    assert lane_names() == ("claims", "episodes", *SEMANTIC, "pinned")
    assert "pinned" in LANES and tuple(LANES)[-1] == "pinned"
    assert plugins.registered(plugins.LANE_GROUP)["pinned"].dist == "toy-lanes"
    assert lane("pinned") is lane("pinned")  # built once, then cached


def test_loading_is_lazy_per_plugin(install):
    install("toy-lanes", {"cairn.lanes": {"pinned": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    lane_names()
    assert "toy_lanes" not in sys.modules  # listed, not imported
    lane("pinned")
    assert "toy_lanes" in sys.modules


def test_a_broken_plugin_is_named_and_breaks_nothing_else(install, cairn):
    install(
        "toy-broken",
        {"cairn.lanes": {"broken": "toy_broken:Lane", "absent": "toy_no_such_module:Lane", "notalane": "toy_lanes:NotALane"}},
        ("toy_broken", "toy_lanes"),
    )
    with pytest.raises(plugins.PluginError) as err:
        lane("broken")
    assert "'broken'" in str(err.value) and "toy-broken" in str(err.value) and "cannot start" in str(err.value)
    with pytest.raises(plugins.PluginError, match="toy_no_such_module"):
        lane("absent")
    with pytest.raises(plugins.PluginError, match="does not implement Lane"):
        lane("notalane")
    # Negative control: the built-ins and every other command still work.
    target = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    assert cairn.recall("api service docker").ids == [target]
    with pytest.raises(plugins.PluginError, match="broken"):
        cairn.recall("api service docker", lane="broken")


def test_a_broken_plugin_fails_the_cli_with_one_line(install, cli):
    install("toy-broken", {"cairn.lanes": {"broken": "toy_broken:Lane"}}, ("toy_broken",))
    assert cli("remember", "The API gateway is written in Go", "--kind", "fact").code == 0  # recall reads an existing store
    r = cli("recall", "api", "--lane", "broken")
    assert r.code == 1 and r.err.startswith("cairn: lane plug-in 'broken'") and len(r.err.strip().splitlines()) == 1
    assert "toy-broken" in r.err
    assert cli("remember", "The API service is deployed with Docker Compose", "--kind", "fact").code == 0


def test_an_unknown_lane_is_refused_with_the_known_ones(install, cairn):
    install("toy-lanes", {"cairn.lanes": {"pinned": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    with pytest.raises(InvalidInput) as err:
        cairn.recall("api", lane="vector")
    assert "unknown lane 'vector' (one of: claims, episodes, all, hybrid, hybrid-episodes, semantic," in str(err.value)
    known = r"not installed \(known: claims, episodes, semantic, semantic-episodes, pinned\)"
    with pytest.raises(plugins.PluginError, match=known):
        lane("vector")
    assert cairn.recall("api", lane="pinned").ids == []  # negative control: a known lane is accepted


def test_one_name_from_two_distributions_is_refused(install):
    install("toy-one", {"cairn.lanes": {"pinned": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    install("toy-two", {"cairn.lanes": {"pinned": "toy_lanes:GatedLane", "gated": "toy_lanes:GatedLane"}})
    with pytest.raises(plugins.PluginError, match="more than one distribution.*toy-one.*toy-two"):
        lane("pinned")
    assert lane("gated").name == "gated"  # negative control: the other name of the same distribution loads


def test_a_plugin_cannot_take_the_name_of_a_composition(install, cairn):
    install("toy-lanes", {"cairn.lanes": {"all": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    assert lane_choices() == ("claims", "episodes", "all", *FUSED)  # listed once, as the composition
    target = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    assert cairn.recall("api service docker", lane="all").ids == [target]
    assert "toy_lanes" not in sys.modules  # the plug-in was never loaded


def test_the_built_in_table_is_what_pyproject_registers(install):
    """plugins.BUILTINS loads Cairn's own plug-ins without a scan; it must be exactly what
    the installed distribution registers, group by group."""
    for group in plugins.GROUPS:
        own = {name: entry.value for name, entry in plugins.registered(group).items() if entry.dist == "cairn-memory"}
        assert own == plugins.BUILTINS[group], group


def test_a_third_party_cannot_take_a_built_in_name(install, cairn):
    install("toy-lanes", {"cairn.lanes": {"claims": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    assert type(lane("claims")).__module__ == "cairn.recall.lanes.claims"
    target = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    assert cairn.recall("api service docker").ids == [target]
    assert "toy_lanes" not in sys.modules  # never imported
    assert lane_names().count("claims") == 1  # listed once, as Cairn's own


def test_a_name_that_disagrees_with_its_lane_is_refused(install):
    install("toy-lanes", {"cairn.lanes": {"other": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    with pytest.raises(plugins.PluginError, match="calls itself 'pinned'"):
        lane("other")


def test_unreadable_metadata_is_left_out_and_reported(install, tmp_path):
    install("toy-lanes", {"cairn.lanes": {"pinned": "toy_lanes:PinnedLane"}}, ("toy_lanes",))
    bad = tmp_path / "site" / "toy_bad-1.0.dist-info"
    bad.mkdir()
    (bad / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-bad\nVersion: 1.0\n")
    (bad / "entry_points.txt").write_text("[cairn.lanes]\nthis line has no equals sign\n")
    plugins.clear_cache()
    assert "pinned" in lane_names()  # the readable distributions are still found
    assert any("toy_bad" in p for p in plugins.problems())


def test_missing_builtins_say_how_to_install(install, monkeypatch, cairn):
    monkeypatch.setattr("importlib.metadata.distributions", lambda: iter(()))
    plugins.clear_cache()
    with pytest.raises(plugins.PluginError, match="built-in not registered.*pip install -e"):
        lane_names()
    # Cairn's own lanes are loaded by name without discovery, so recall still works.
    target = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    assert cairn.recall("api service docker").ids == [target]
    with pytest.raises(plugins.PluginError, match="built-in not registered"):
        cairn.recall("api service docker", lane="pinned")  # anything else needs the registry
    assert tuple(LANES) == ("claims", "episodes", "all", *FUSED)  # the CLI's choices still parse
    monkeypatch.undo()
    plugins.clear_cache()
    assert lane_names()[:2] == ("claims", "episodes")  # negative control: installed, found


def test_commands_scan_nothing_and_recall_loads_only_its_lane(tmp_path):
    # A fresh process: building the parser and running a command reads no entry points;
    # a recall on Cairn's own lane imports that lane (positive control) and still scans
    # nothing: a recall process per prompt pays no discovery.
    db = tmp_path / "cairn.db"
    code = (
        "import sys\n"
        "from cairn.cli import main\n"
        f"main(['--db', {str(db)!r}, 'remember', 'The API service runs on Docker', '--kind', 'fact'])\n"
        "before = 'importlib.metadata' in sys.modules or 'cairn.recall.lanes.claims' in sys.modules\n"
        f"main(['--db', {str(db)!r}, 'recall', 'api service docker', '--no-trace'])\n"
        "print(before, 'cairn.recall.lanes.claims' in sys.modules, 'cairn.recall.lanes.episodes' in sys.modules,"
        " 'importlib.metadata' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False True False False"
