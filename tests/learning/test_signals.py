"""Reinforcement events from the user's reactions in a transcript: success (+0.2),
approval (+1.0) and correction (-1.0), linked through a host's ledger to the memories
recalled for the turn just before; and the reactions that are no signal at all."""

from __future__ import annotations

from datetime import timedelta

import pytest

from cairn import Cairn
from cairn.learn.signals import REINFORCEMENT, SUCCESS, prompt_key, read_signal
from testkit.claude_code import START, assistant, user

LATER = START + timedelta(days=2)
ASK = "How do I deploy to staging?"


@pytest.fixture
def engine(db_path):
    with Cairn(db_path, now=LATER) as cairn:
        yield cairn


@pytest.fixture
def deploy(engine) -> str:
    return engine.remember("Staging deploys run from the deploy-staging workflow", kind="fact").memory.id


@pytest.fixture
def vpn(engine) -> str:
    return engine.remember("The VPN gateway is vpn-3 in the Berlin office", kind="fact").memory.id


def transcript(tmp_path, reaction: str, *, reply: str = "Run the deploy-staging workflow.", name: str = "s.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join([user(0, ASK), assistant(1, reply), user(2, reaction), assistant(3, "Glad to help.")])
                    + "\n", encoding="utf-8")
    return str(path)


def outcomes(engine: Cairn, memory_id: str) -> list[tuple[str, float]]:
    return [(r.outcome, r.weight) for r in engine.reinforcements(memory_id)]


SUCCESSES = ["that worked", "Perfect, thanks!", "great, it passes now", "Works now, thanks.", "It works!",
             "Thanks for the help!", "好了", "可以了，谢谢", "谢谢！", "测试通过了", "没问题了"]
APPROVALS = ["yes, remember that", "Exactly, always do it that way.", "That's right.", "Exactly.", "没错",
             "对，就是这样", "记住这个"]
NOTHING = ["thanks, but it still fails", "Thanks for nothing", "Great. Now it's broken.", "Oh great, another error.",
           "Yeah right, that worked.", "did that work?", "That didn't work", "It still doesn't work", "No thanks",
           "谢谢，但是还是报错", "还是不行", "Perfect. But the CI is red.", "Great, now run the tests", "yes", "ok",
           "Run the tests again please.", "Remember that the VPN is vpn-3", "If that worked, we could ship.",
           "That's right, but use spaces", "不对", "好的，再跑一次"]


@pytest.mark.parametrize("text", SUCCESSES)
def test_success_is_read(text):
    assert read_signal(text) == SUCCESS


@pytest.mark.parametrize("text", APPROVALS)
def test_approval_is_read(text):
    assert read_signal(text) == REINFORCEMENT


@pytest.mark.parametrize("text", NOTHING)
def test_negation_sarcasm_questions_and_orders_are_no_signal(text):
    assert read_signal(text) is None


def test_success_after_a_recalled_memory_is_an_implicit_success_on_it(engine, deploy, vpn, tmp_path):
    result = engine.learn(transcript(tmp_path, "Perfect, thanks!"), injected={prompt_key(ASK): [deploy]})
    assert result.counts["reinforcements"] == 1
    assert outcomes(engine, deploy) == [(SUCCESS, 0.2)] and outcomes(engine, vpn) == []
    [r] = engine.reinforcements(deploy)
    assert r.source == "5f0c1b2e-sess/u2" and r.at == START + timedelta(seconds=60)  # the turn, when it was said


def test_thanks_with_nothing_recalled_records_nothing(engine, deploy, tmp_path):
    result = engine.learn(transcript(tmp_path, "Perfect, thanks!"), injected={prompt_key("another prompt"): [deploy]})
    assert result.counts["reinforcements"] == 0 and outcomes(engine, deploy) == []
    again = engine.learn(transcript(tmp_path, "Perfect, thanks!", name="t.jsonl"), origin="other")
    assert again.counts["reinforcements"] == 0 and outcomes(engine, deploy) == []  # and without a ledger at all


def test_without_a_ledger_success_is_never_recorded(engine, deploy, tmp_path):
    engine.learn(transcript(tmp_path, "that worked"))
    assert outcomes(engine, deploy) == []


def test_sarcasm_and_negation_record_nothing(engine, deploy, tmp_path):
    for n, text in enumerate(["thanks, but it still fails", "Yeah right, that worked.", "Great. Now it's broken."]):
        path = transcript(tmp_path, text, name=f"{n}.jsonl")
        assert engine.learn(path, origin=f"o{n}", injected={prompt_key(ASK): [deploy]}).counts["reinforcements"] == 0
    assert outcomes(engine, deploy) == []


def test_a_success_two_turns_later_is_not_linked(engine, deploy, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([user(0, ASK), assistant(1, "Run the deploy-staging workflow."),
                               user(2, "Now rename the build job."), assistant(3, "Renamed."),
                               user(4, "that worked")]) + "\n", encoding="utf-8")
    engine.learn(str(path), injected={prompt_key(ASK): [deploy]})
    assert outcomes(engine, deploy) == []


def test_approval_is_an_explicit_reinforcement(engine, deploy, tmp_path):
    engine.learn(transcript(tmp_path, "Exactly, always do it that way."), injected={prompt_key(ASK): [deploy]})
    assert outcomes(engine, deploy) == [(REINFORCEMENT, 1.0)]


def test_with_several_recalled_the_one_the_answer_repeats_is_linked_or_none(engine, deploy, vpn, tmp_path):
    ledger = {prompt_key(ASK): [vpn, deploy]}
    engine.learn(transcript(tmp_path, "that worked"), injected=ledger)
    assert outcomes(engine, deploy) == [(SUCCESS, 0.2)] and outcomes(engine, vpn) == []
    vague = transcript(tmp_path, "that worked", reply="Done.", name="v.jsonl")
    engine.learn(vague, origin="vague", injected=ledger)  # the answer repeats neither: no link
    assert len(outcomes(engine, deploy)) == 1 and outcomes(engine, vpn) == []


def test_a_correction_of_what_was_recalled_is_an_explicit_correction(engine, deploy, vpn, tmp_path):
    path = transcript(tmp_path, "No, the staging deploy runs from the release workflow now.")
    result = engine.learn(path, injected={prompt_key(ASK): [deploy, vpn]})
    assert outcomes(engine, deploy) == [("explicit_correction", -1.0)] and outcomes(engine, vpn) == []
    assert result.counts["reinforcements"] == 1


def test_a_correction_replacing_a_record_is_counted_once(engine, tmp_path):
    engine.learn(str(_write(tmp_path / "a.jsonl", [user(0, "I prefer tabs over spaces for indentation.")])))
    [old] = [m for m in engine.store.iter_memories(engine.space) if m.kind.value == "preference"]
    path = _write(tmp_path / "b.jsonl", [user(10, "Which indentation do I use?", at=START + timedelta(hours=1)),
                                         assistant(11, "You prefer tabs.", at=START + timedelta(hours=1)),
                                         user(12, "No, I prefer spaces, not tabs.", at=START + timedelta(hours=1))])
    result = engine.learn(str(path), injected={prompt_key("Which indentation do I use?"): [old.id]})
    assert result.counts["replaced"] == 1 and outcomes(engine, old.id) == [("explicit_correction", -1.0)]


def test_a_replay_records_no_duplicate(engine, deploy, tmp_path):
    path = transcript(tmp_path, "that worked")
    ledger = {prompt_key(ASK): [deploy]}
    engine.learn(path, injected=ledger)
    again = engine.learn(path, injected=ledger)
    assert again.counts["reinforcements"] == 0 and outcomes(engine, deploy) == [(SUCCESS, 0.2)]
    # Even a turn read again (here: under another origin, where it is new) is keyed by its id.
    assert engine.learn(path, origin="elsewhere", injected=ledger).counts["episodes"] == 4
    assert outcomes(engine, deploy) == [(SUCCESS, 0.2)]


def test_a_forgotten_memory_gets_no_event(engine, deploy, tmp_path):
    engine.forget(deploy)
    engine.learn(transcript(tmp_path, "that worked"), injected={prompt_key(ASK): [deploy]})
    assert outcomes(engine, deploy) == []


def test_the_previous_turn_may_be_one_stored_by_an_earlier_run(engine, deploy, tmp_path):
    lines = [user(0, ASK), assistant(1, "Run the deploy-staging workflow.")]
    path = _write(tmp_path / "s.jsonl", lines)
    engine.learn(str(path), injected={prompt_key(ASK): [deploy]})
    _write(path, lines + [user(2, "great, it passes now")])
    engine.learn(str(path), injected={prompt_key(ASK): [deploy]})
    assert outcomes(engine, deploy) == [(SUCCESS, 0.2)]


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_correction_applied_again_after_an_undo_is_not_recorded_twice(engine, tmp_path):
    engine.learn(str(_write(tmp_path / "a.jsonl", [user(0, "I prefer tabs over spaces for indentation.")])))
    [old] = [m for m in engine.store.iter_memories(engine.space) if m.kind.value == "preference"]
    path = str(_write(tmp_path / "b.jsonl", [user(10, "No, I prefer spaces, not tabs.", at=START + timedelta(hours=1))]))
    first = engine.learn(path)
    [apply_event] = [e for e in first.events if e.reason.startswith("apply ")]
    engine.undo(apply_event.id)
    again = engine.learn(path)
    assert again.counts["replaced"] == 1 and again.counts["reinforcements"] == 0
    assert outcomes(engine, old.id) == [("explicit_correction", -1.0)]
