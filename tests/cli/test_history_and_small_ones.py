"""What a correction looks like afterwards (history --verbose, timeline), and the small
surprises of a first hour: global options in every --help, --version, any-case
vocabularies, pages past the end, status wording, open intervals, pin on a forgotten
record, long queries, progress of long export/import."""

from __future__ import annotations

import argparse
import io

import pytest

from cairn.cli import build_parser
from cairn.cli.common import Progress
from cairn.recall.query import MAX_QUERY_CHARS, validate_query

OLD = "Use PostgreSQL 16 for billing"
NEW = "Use PostgreSQL 17 for billing"


def corrected(cli) -> str:
    memory_id = cli("--json", "remember", OLD, "--kind", "decision").json()["id"]
    assert cli("correct", memory_id, NEW).code == 0
    return memory_id


def test_history_verbose_shows_both_texts_of_a_correction(cli):
    memory_id = corrected(cli)
    plain = cli("history", memory_id).out
    assert OLD not in plain  # the summary stays a summary
    verbose = cli("history", memory_id, "--verbose").out
    assert f'before: "{OLD}"' in verbose and f'after:  "{NEW}"' in verbose
    doc = cli("--json", "history", memory_id, "--verbose").json()
    newest = doc["events"][0]
    assert newest["reason"] == "correct" and newest["texts"] == [{"id": memory_id, "before": OLD, "after": NEW}]
    assert doc["events"][1]["texts"] == [{"id": memory_id, "before": None, "after": OLD}]


def test_history_verbose_bounds_each_text(cli):
    long_text = "The billing service " + "really " * 80 + "uses PostgreSQL"
    memory_id = cli("--json", "remember", long_text, "--kind", "fact").json()["id"]
    texts = cli("--json", "history", memory_id, "--verbose").json()["events"][0]["texts"]
    assert len(texts[0]["after"]) == 200 and texts[0]["after"].endswith("…")


def test_pin_changes_no_text_so_verbose_history_lists_none(cli):
    memory_id = corrected(cli)
    cli("pin", memory_id)
    assert cli("--json", "history", memory_id, "--verbose").json()["events"][0]["texts"] == []


def test_timeline_shows_the_text_before_a_correction(cli):
    memory_id = corrected(cli)
    out = cli("timeline", "billing").out
    assert "was (correct" in out and OLD in out and NEW in out
    state = cli("--json", "timeline", "billing").json()["states"][0]
    assert state["id"] == memory_id and [(t["before"], t["after"]) for t in state["texts"]] == [(OLD, NEW)]


def test_timeline_of_an_uncorrected_record_has_no_earlier_text(cli):
    cli("remember", OLD, "--kind", "decision")
    assert "was (" not in cli("timeline", "billing").out
    assert "texts" not in cli("--json", "timeline", "billing").json()["states"][0]


@pytest.mark.parametrize(
    ("flags", "span"),
    [((), "no validity interval"), (("--valid-from", "2026-01-01"), "valid from 2026-01-01"),
     (("--valid-to", "2026-06-01"), "valid until 2026-06-01"),
     (("--valid-from", "2026-01-01", "--valid-to", "2026-06-01"), "valid 2026-01-01")],
)
def test_timeline_says_open_intervals_in_words(cli, flags, span):
    cli("--now", "2026-07-01T00:00:00Z", "remember", OLD, "--kind", "decision", *flags)
    out = cli("--now", "2026-07-01T00:00:00Z", "timeline", "billing").out
    assert span in out and "…" not in out.splitlines()[0]


# -- help, version, vocabularies ---------------------------------------------------------------


def subparsers():
    parser = build_parser()
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(p, prefix=""):
        for action in p._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                for name, sub in action.choices.items():
                    before = len(found)
                    walk(sub, f"{prefix}{name} ")
                    if len(found) == before:
                        found[prefix + name] = sub

    walk(parser)
    return found


def test_every_subcommand_help_lists_the_four_global_options():
    commands = subparsers()
    assert len(commands) > 20
    for name, sub in commands.items():
        text = sub.format_help()
        for option in ("--db PATH", "--space NAME", "--now ISO-8601", "--json"):
            assert option in text, f"{name}: {option}"


def test_version(cli):
    import cairn

    r = cli("--version")
    assert r.code == 0 and r.out == f"cairn {cairn.__version__}\n"  # the installed version, the package's own


@pytest.mark.parametrize("spelling", ["Preference", "PREFERENCE", "preference"])
def test_vocabularies_accept_any_case(cli, spelling):
    r = cli("--json", "remember", "Prefer short functions", "--kind", spelling, "--basis", "User_Statement")
    assert r.code == 0 and cli("--json", "list", "--kind", spelling.swapcase()).json()["total"] == 1


def test_a_dash_may_stand_for_an_underscore(cli):
    r = cli("--json", "remember", "The migration is running", "--kind", "Project-State")
    assert r.code == 0 and cli("--json", "show", r.json()["id"]).json()["memory"]["kind"] == "project_state"


def test_an_unknown_kind_is_still_refused(cli):
    r = cli("remember", "Prefer short functions", "--kind", "Preferences")
    assert r.code == 1 and "kind" in r.err


def test_a_page_past_the_end_is_refused(cli):
    for n in range(3):
        cli("remember", f"Service {n} listens on port {8000 + n}", "--kind", "fact")
    assert cli("list", "--page", "1").code == 0
    r = cli("list", "--page", "2")
    assert r.code == 1 and "no such page: 2" in r.err and r.out == ""


def test_an_empty_store_has_one_page(cli):
    cli("remember", "Anything to create the database", "--kind", "fact")
    r = cli("--space", "empty", "list")
    assert r.code == 0 and "page 1/1 (0 records)" in r.out
    assert "page 1/1 (1 record)" in cli("list").out


def test_verdicts_and_roles_accept_any_case(cli):
    old = cli("--json", "remember", OLD, "--kind", "decision").json()["id"]
    new = cli("--json", "remember", NEW, "--kind", "decision").json()["id"]
    assert cli("feedback", old, "Accurate").code == 0
    assert cli("relate", new, "SUPERSEDES", old).code == 0
    assert cli("relate", new, "replaces", old).code == 1  # negative control: still a closed set


def test_show_says_an_open_interval_in_words(cli):
    memory_id = cli("--json", "--now", "2026-07-01T00:00:00Z", "remember", OLD, "--kind", "decision",
                    "--valid-from", "2026-01-01").json()["id"]
    out = cli("--now", "2026-07-01T00:00:00Z", "show", memory_id).out
    assert "valid from 2026-01-01" in out and "…" not in out


def test_status_wording(cli):
    cli("--space", "other", "remember", "Anything to create the database", "--kind", "fact")
    first = cli("status").out
    assert "space default: 0 memories; 0 events; 0 relations" in first and " ;" not in first
    cli("remember", "Service 1 listens on port 8001", "--kind", "fact")
    assert "space default: 1 memory (1 provisional); 1 event; 0 relations" in cli("status").out


def test_pin_is_refused_on_a_forgotten_record(cli):
    memory_id = cli("--json", "remember", OLD, "--kind", "decision").json()["id"]
    cli("forget", memory_id)
    r = cli("pin", memory_id)
    assert r.code == 1 and "forgotten" in r.err
    other = cli("--json", "remember", NEW, "--kind", "decision").json()["id"]
    assert cli("pin", other).code == 0  # negative control


def test_bench_locomo_help_states_the_default_data_path_once():
    text = subparsers()["bench locomo"].format_help()
    assert "../shared" not in text and text.count("locomo10.json") == 2  # the description's path, --data's name


# -- long queries ------------------------------------------------------------------------------


def test_a_whole_prompt_is_read_for_its_closing_question(cairn):
    memory_id = cairn.remember("The staging database listens on port 5432", kind="fact").id
    prompt = "Here is some context I pasted about lunch. " * 60 + "Which port does the staging database listen on?"
    assert len(prompt) > MAX_QUERY_CHARS
    assert cairn.recall(prompt, trace=False).ids == [memory_id]
    assert validate_query(prompt) == "Which port does the staging database listen on?"
    closing = "Tell me. " + "alpha " * 200 + "omega"  # no question: the last sentence, cut on a word
    query = validate_query(closing)
    assert len(query) <= MAX_QUERY_CHARS and query.endswith("omega") and query.startswith("alpha ")


def test_a_prompt_without_a_topic_in_its_question_returns_nothing(cairn):
    """Negative control: the context is not searched in place of the question."""
    cairn.remember("The staging database listens on port 5432", kind="fact")
    prompt = "The staging database listens on a port. " * 20 + "What time is lunch?"
    assert cairn.recall(prompt, trace=False).ids == []


def test_a_short_query_is_untouched():
    assert validate_query("  which database  ") == "which database"


# -- progress ----------------------------------------------------------------------------------


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_shown_on_a_terminal_only():
    shown, hidden = Tty(), io.StringIO()
    for stream in (shown, hidden):
        p = Progress("export", every=2, stream=stream)
        for _ in range(5):
            p.tick()
        p.done()
    assert "export: 4 lines" in shown.getvalue() and "export: 5 lines, done" in shown.getvalue()
    assert hidden.getvalue() == ""
