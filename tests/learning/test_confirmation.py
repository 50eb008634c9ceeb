"""Confirmation (docs/evidence.md): reinforced_at moves forward only, writes no event, undo carries it."""

from __future__ import annotations

from testkit.batches import batch, claim, day, source

FACT = "The staging database listens on port 5432"
MENTION = "Reminder: the staging database listens on port 5432, nothing changed."


def fact(cairn, text=FACT, kind="fact", at=None, **kw):
    return cairn.remember(text, kind=kind, origin="acme", at=at or day(0), **kw).memory


def test_candidate_left_standing_is_confirmed_without_an_event(cairn, at):
    kept = fact(cairn)
    at(10)
    events = cairn.store.count_events(cairn.space)
    result = cairn.apply(batch(source(MENTION, at=day(9))))
    assert result.confirmed == [kept.id] and result.counts["confirmed"] == 1
    assert result.event is None and cairn.store.count_events(cairn.space) == events
    now = cairn.get(kept.id)
    assert now.reinforced_at == day(9)
    assert now.updated_at == day(0) and now.revision == 1  # the authority gate does not move
    quality = cairn.show(kept.id).quality
    assert quality.confirmed_at == day(9) and quality.reinforced is True


def test_unmentioned_record_is_not_confirmed(cairn, at):
    kept = fact(cairn)
    at(10)
    cairn.apply(batch(source("Lunch is at noon on Fridays", at=day(9))))
    assert cairn.get(kept.id).reinforced_at is None


def test_project_state_is_never_confirmed(cairn, at):
    state = fact(cairn, "The staging database migration is running", kind="project_state")
    at(3)
    cairn.apply(batch(source("The staging database migration is running still", at=day(2))))
    assert cairn.get(state.id).reinforced_at is None


def test_progress_sources_never_confirm(cairn, at):
    state = fact(cairn, "The staging database migration is running", kind="project_state")
    at(3)
    result = cairn.apply(batch(source("staging database migration is running", kind="progress", at=day(2))))
    assert state.id in result.mentioned and result.confirmed == []


def test_confirmation_never_moves_backwards(cairn, at):
    kept = fact(cairn)
    at(10)
    cairn.apply(batch(source(MENTION, at=day(9))))
    cairn.apply(batch(source(MENTION, at=day(5))))  # an older, late source
    assert cairn.get(kept.id).reinforced_at == day(9)


def test_withheld_target_is_disputed_not_confirmed(cairn, at):
    kept = fact(cairn, basis="manual_correction")
    at(10)
    result = cairn.apply(batch(source(MENTION, at=day(9)), claim("The staging database listens on port 5433", replaces=kept.id)))
    assert result.counts["withheld"] == 1 and cairn.get(kept.id).reinforced_at is None


def test_replaced_by_identical_content_is_confirmed(cairn, at):
    kept = fact(cairn, basis="manual_correction")
    at(10)
    result = cairn.apply(batch(source(MENTION, at=day(9)), claim(FACT, replaces=kept.id)))
    assert result.outcomes[0].outcome == "reaffirmed" and cairn.get(kept.id).reinforced_at == day(9)
    assert cairn.get(kept.id).updated_at == day(0)  # a summary reaffirmation does not refresh evidence


def test_confirmation_revives_a_dormant_record(cairn, at):
    kept = fact(cairn, at=day(-200))
    at(0)
    assert cairn.show(kept.id).quality.dormant is True
    cairn.apply(batch(source(MENTION, at=day(0))))
    quality = cairn.show(kept.id).quality
    assert quality.dormant is False and quality.aging is False


def test_undo_ignores_and_carries_forward_reinforced_at(cairn, at):
    kept = fact(cairn)
    created = cairn.history(kept.id, limit=1)[0]
    at(10)
    cairn.apply(batch(source(MENTION, at=day(9))))
    assert cairn.get(kept.id).reinforced_at == day(9)
    # The confirmation happened after the event and wrote none: it must not block the undo...
    undone = cairn.undo(created.id)
    # ...and it is carried forward rather than reverted with the record.
    assert cairn.get(kept.id).status.value == "forgotten" and cairn.get(kept.id).reinforced_at == day(9)
    cairn.undo(undone.id)
    assert cairn.get(kept.id).status.value == "provisional" and cairn.get(kept.id).reinforced_at == day(9)
    assert cairn.store.count_events(cairn.space) == 3  # remember, undo, undo: confirmation added none


def test_undo_of_a_batch_carries_confirmation_forward(cairn, at):
    kept = fact(cairn, basis="summary")
    other = fact(cairn, "Deploys happen every Friday afternoon", basis="summary")
    at(10)
    text = MENTION + " Deploys happen every Friday afternoon."
    result = cairn.apply(batch(source(text, kind="conversation", at=day(9)), claim(FACT + " on staging", replaces=kept.id)))
    assert cairn.get(other.id).reinforced_at == day(9)
    cairn.undo(result.event.id)
    assert cairn.get(kept.id).content == FACT
    assert cairn.get(other.id).reinforced_at == day(9)


def test_pinned_records_never_age(cairn, at):
    pinned = fact(cairn, pin=True, at=day(-1000))
    durable = fact(cairn, "Deploys happen every Friday afternoon", at=day(-1000))
    at(0)
    quality = cairn.show(pinned.id).quality
    assert (quality.freshness, quality.aging, quality.dormant) == (1.0, False, False)
    assert cairn.show(durable.id).quality.dormant is True


def test_pinned_candidates_are_not_stamped(cairn, at):
    pinned = fact(cairn, pin=True)
    at(10)
    result = cairn.apply(batch(source(MENTION, at=day(9))))
    assert pinned.id in result.mentioned and result.confirmed == [] and cairn.get(pinned.id).reinforced_at is None


def test_re_emitting_stored_text_is_not_a_confirmation(cairn, at):
    # The source does not mention the record; the proposer merely repeats its text.
    kept = fact(cairn)
    at(10)
    result = cairn.apply(batch(source("Unrelated meeting notes about lunch", at=day(9)), claim(FACT)))
    assert result.outcomes[0].outcome == "duplicate" and result.mentioned == []
    assert cairn.get(kept.id).reinforced_at is None
