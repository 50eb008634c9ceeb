# Conversations: ingest keeps every turn verbatim; a plain question is answered from them.
step "Conversations: each turn stored verbatim as an episode, with who spoke and when"
cat > "$PWD/.cairn-demo/trip.jsonl" <<'TURNS'
{"id": "t1", "speaker": "Maya", "text": "I finally booked the flights for Lisbon, we leave on the 14th of March.", "time": "2026-11-10T09:00:00Z"}
{"id": "t2", "speaker": "Jonas", "text": "Nice. Did you get the window seats?", "time": "2026-11-10T09:01:00Z"}
{"id": "t3", "speaker": "Maya", "text": "Yes, 14A and 14B. The hotel is near the Alfama district.", "time": "2026-11-10T09:02:00Z"}
{"id": "t4", "speaker": "Maya", "text": "Change of plans: the airline moved our flight, we now leave on the 16th of March.", "time": "2026-11-24T10:00:00Z"}
TURNS
run cairn --now 2026-11-29T12:06:00Z ingest "$PWD/.cairn-demo/trip.jsonl"

step "No claim answers, so recall answers from the turns, the later change included (--inject would not)"
run cairn --now 2026-11-29T12:07:00Z recall "when does Maya leave for Lisbon"
