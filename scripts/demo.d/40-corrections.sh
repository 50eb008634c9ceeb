# Corrections, contradictions and time: a correction chain, an as-of and a known-at question.
step "A fact, corrected twice: recall returns only the newest, with the older refs"
ROOM_A=$(cairn --now 2026-11-03T09:00:00Z --json remember "The design review meets in room Aurora" \
    --kind fact --origin acme/design | json_field id)
ROOM_B=$(cairn --now 2026-11-04T09:00:00Z --json remember "The design review meets in room Borealis" \
    --kind fact --origin acme/design --corrects "$ROOM_A" | json_field id)
run cairn --now 2026-11-05T09:00:00Z remember "The design review meets in room Cirrus" \
    --kind fact --origin acme/design --corrects "${ROOM_B:0:8}"
run cairn --now 2026-11-29T12:00:00Z recall "design review room Aurora"
step "The older versions come back only when asked for, right after their correction"
run cairn --now 2026-11-29T12:00:00Z recall "design review room Aurora" --include-history

step "A cycle is refused, with its reason, and nothing is written"
run cairn --now 2026-11-29T12:01:00Z relate "$ROOM_A" corrects "$ROOM_B" || true

step "Valid time: the office moved on 1 July 2024"
OLD_OFFICE=$(cairn --now 2026-11-06T09:00:00Z --json remember "The Acme office address is 4 Oak Avenue" \
    --kind fact --origin acme/admin --valid-from 2020-01-01 --valid-to 2024-06-30 | json_field id)
run cairn --now 2026-11-20T09:00:00Z remember "The Acme office address is 12 Elm Street" \
    --kind fact --origin acme/admin --valid-from 2024-07-01 --supersedes "$OLD_OFFICE"
run cairn --now 2026-11-29T12:00:00Z recall "Acme office address"
run cairn --now 2026-11-29T12:00:00Z recall "Acme office address" --as-of 2022-03-01

step "Record time: what did Cairn hold at noon on 4 November, before the last correction?"
run cairn --now 2026-11-29T12:00:00Z recall "design review room" --known-at 2026-11-04T12:00:00Z
step "Both axes: what did Cairn believe on 10 November about the address in March 2022?"
run cairn --now 2026-11-29T12:00:00Z recall "Acme office address" --known-at 2026-11-10 --as-of 2022-03-01

step "The subject's history in time order"
run cairn --now 2026-11-29T12:00:00Z timeline "Acme office address"
