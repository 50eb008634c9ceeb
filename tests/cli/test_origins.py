"""Origins in recall, search, explain and list: a filter (`--origin`), a preference
(`--prefer-origin`, order among relevant matches only) and a label in the digest when
the results span several origins."""

from __future__ import annotations

import pytest

PYTEST = "Tests run with pytest -q from the repository root"
JEST = "Tests run with Jest through npm test"


@pytest.fixture
def two_projects(cairn):
    a = cairn.remember(PYTEST, kind="fact", origin="repo-a").id
    b = cairn.remember(JEST, kind="fact", origin="repo-b").id
    return a, b


def test_without_an_origin_both_projects_come_back_each_labelled(cairn, two_projects):
    recalled = cairn.recall("how do tests run", trace=False)
    assert set(recalled.ids) == set(two_projects)
    assert "origin repo-a" in recalled.digest and "origin repo-b" in recalled.digest


def test_results_of_one_origin_carry_no_origin_label(cairn, two_projects):
    """Negative control: the label appears only when results span origins."""
    recalled = cairn.recall("how do tests run", origin="repo-a", trace=False)
    assert recalled.ids == [two_projects[0]]
    assert "origin " not in recalled.digest


@pytest.mark.parametrize("origin", ["repo-a", "repo-b"])
def test_the_origin_filter_keeps_only_that_origin(cairn, two_projects, origin):
    wanted = two_projects[0] if origin == "repo-a" else two_projects[1]
    assert cairn.recall("how do tests run", origin=origin, trace=False).ids == [wanted]
    assert cairn.search("how do tests run", origin=origin, trace=False).ids == [wanted]
    reasons = {c["id"]: c["reason"] for c in cairn.explain("how do tests run", origin=origin)["candidates"]}
    other = two_projects[1] if origin == "repo-a" else two_projects[0]
    assert reasons[other] == "other-origin" and reasons[wanted] == "selected"
    assert cairn.explain("how do tests run", origin=origin)["query"]["origin"] == origin  # traces keep it too
    assert "origin" not in cairn.explain("how do tests run")["query"]


@pytest.mark.parametrize("preferred", ["repo-a", "repo-b"])
def test_the_preferred_origin_comes_first_and_the_other_stays(cairn, two_projects, preferred):
    first = two_projects[0] if preferred == "repo-a" else two_projects[1]
    recalled = cairn.recall("how do tests run", prefer_origin=preferred, trace=False)
    assert recalled.ids[0] == first and set(recalled.ids) == set(two_projects)


def test_a_preference_never_brings_in_an_unrelated_record(cairn, two_projects):
    cairn.remember("Lunch is served at noon on Fridays", kind="fact", origin="repo-a")
    recalled = cairn.recall("how do tests run", prefer_origin="repo-a", trace=False)
    assert set(recalled.ids) == set(two_projects)


def test_list_filters_by_origin(cairn, two_projects):
    assert [m.id for m in cairn.list(origin="repo-b").memories] == [two_projects[1]]
    assert cairn.list(origin="nowhere").total == 0
    assert cairn.list().total == 2


def test_the_cli_flags(cli):
    cli("remember", PYTEST, "--kind", "fact", "--origin", "repo-a")
    cli("remember", JEST, "--kind", "fact", "--origin", "repo-b")
    for command in ("recall", "search"):
        only = cli("--json", command, "how do tests run", "--origin", "repo-b").json()
        assert [r["content"] for r in only["results"]] == [JEST]
        preferred = cli("--json", command, "how do tests run", "--prefer-origin", "repo-a").json()
        assert [r["content"] for r in preferred["results"]] == [PYTEST, JEST]
    assert "other-origin" in cli("explain", "how do tests run", "--origin", "repo-a").out
    spanning = cli("--json", "recall", "how do tests run").json()
    assert sorted(r["origin"] for r in spanning["results"]) == ["repo-a", "repo-b"]
    listed = cli("--json", "list", "--origin", "repo-a").json()
    assert [m["content"] for m in listed["memories"]] == [PYTEST]
