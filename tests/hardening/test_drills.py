"""Small, fast variants of the drills (the full runs and their figures are in
docs/benchmarks.md), each beside a control showing the drill notices a failure."""

from __future__ import annotations

import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn import Cairn
from cairn.bench.drills import concurrency, crash, fuzz, redaction, refusals


def test_redaction_drill_meets_its_bar():
    result = redaction.run()
    assert result.ok and result.secrets >= 100 and result.benign >= 60


def test_redaction_drill_fails_when_nothing_is_redacted(monkeypatch):
    monkeypatch.setattr(redaction, "redact", lambda text: (text, []))
    assert not redaction.run().ok


def test_refusals_drill_finds_no_changed_file():
    result = refusals.run()
    assert result.ok and result.refused == result.runs > 100


def test_refusals_drill_notices_a_command_that_writes(monkeypatch):
    import cairn.cli

    def careless(argv):
        folder = Path(argv[1]).parent
        if folder.is_dir():
            folder.joinpath("left-behind").write_text("x")
        return 1

    monkeypatch.setattr(cairn.cli, "main", careless)
    monkeypatch.setattr(refusals, "SCENARIOS", {"text file": refusals.SCENARIOS["text file"]})
    monkeypatch.setattr(refusals, "BAD_INPUTS", [])
    result = refusals.run()
    assert not result.ok and result.changed


def test_fuzz_drill_small(tmp_path):
    result = fuzz.run(tmp_path, inputs=150, seed=5)
    assert result.ok, result.lines()
    assert result.cli_inputs == 150 and result.api_calls >= 15 and result.corrupted_inputs > 0


def test_fuzz_drill_counts_what_escapes(tmp_path, monkeypatch):
    import cairn.cli

    real = cairn.cli.main

    def leaky(argv):
        if "status" in argv:
            raise RuntimeError("boom")
        return real(argv)

    monkeypatch.setattr(cairn.cli, "main", leaky)
    monkeypatch.setattr(fuzz, "_corruptions", lambda *args: [])
    assert fuzz.run(tmp_path, inputs=60, seed=5).tracebacks


def test_crash_drill_small(tmp_path):
    result = crash.run(tmp_path / "c.db", kills=3, seed=1)
    assert result.ok and result.kills == 3 and result.acknowledged >= 3


def test_concurrency_drill_small(tmp_path):
    result = concurrency.run(tmp_path / "c.db", writers=3, writes=15, readers=1)
    assert result.ok and result.stored == 45


# -- generated command lines through the CLI entry point --------------------------------

ARG = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=string.digits + "-.e", max_size=25),
    st.sampled_from(["fact", "useful", "corrects", "9999-12-31T23:59:59-01:00", "0001-01-01", "nan", "inf", "",
                     "caf\udce9", "a" * 5000, "--json", "-1", "99999999999999999999"]),
)
COMMAND = st.sampled_from(["remember", "show", "list", "history", "recall", "search", "explain", "timeline", "forget",
                           "pin", "unpin", "undo", "correct", "feedback", "relate", "status", "export"])
OPTION = st.sampled_from(["--kind", "--origin", "--alias", "--at", "--limit", "--page", "--budget", "--as-of", "--source",
                          "--known-at", "--valid-from", "--now", "--space", "--lane"])


@st.composite
def command_lines(draw) -> list[str]:
    argv = [draw(COMMAND), *draw(st.lists(ARG, max_size=3))]
    for _ in range(draw(st.integers(0, 3))):
        argv += [draw(OPTION), draw(ARG)]
    return argv


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=command_lines())
def test_generated_command_lines_never_leak_a_python_error(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)  # `export NAME` writes NAME: keep it out of the repository
    db = tmp_path / "h.db"
    if not db.exists():
        with Cairn(db) as cairn:
            cairn.remember("The staging host runs Debian 12", kind="fact")
    result = fuzz.FuzzResult()
    code = fuzz._call_cli(["--db", str(db), *argv], result)
    assert result.ok, result.lines()
    assert code in (0, 1, 2)
