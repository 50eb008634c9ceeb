# Recall: relevance first, a bounded digest with evidence labels, explain, and no fallback.
step "Recall: a few more memories to search"
run cairn --now 2026-11-20T09:00:00Z remember "SQLite authentication uses a password file next to the database" --kind fact --origin acme/api
run cairn --now 2026-11-20T09:01:00Z remember "PostgreSQL authentication uses scram-sha-256 for every role" --kind fact --origin acme/billing
run cairn --now 2026-11-20T09:02:00Z remember "SQLite busy timeout is 5 seconds in the worker" --kind fact --origin acme/api
run cairn --now 2026-11-20T09:03:00Z remember "Our running joke is the glacier custard incident from the 2024 retreat" --kind fact
run cairn --now 2026-11-20T09:04:00Z remember "At the retreat we had custard, watched a glacier film and wrote an incident report" --kind fact
run cairn --now 2026-11-10T09:05:00Z remember "The sprint board lives in Linear under the Platform team" --kind project_state

step "Recall a topic: at most 3 claims in 2048 bytes, each labelled with kind, status and evidence"
run cairn --now 2026-11-29T12:00:00Z recall "how is the API deployed"
run cairn --now 2026-11-29T12:00:00Z recall "SQLite"
run cairn --now 2026-11-29T12:00:00Z recall "the glacier custard incident"

step "The named-attribute rule: once SQLite authentication is forgotten, nothing stands in for it"
SQLITE_AUTH=$(cairn --now 2026-11-29T12:00:00Z --json recall "SQLite authentication" --no-trace \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
run cairn --now 2026-11-29T12:01:00Z forget "$SQLITE_AUTH"
run cairn --now 2026-11-29T12:02:00Z recall "SQLite authentication"
run cairn --now 2026-11-29T12:02:00Z explain "SQLite authentication"

step "Explain a recall: every candidate's numbers and reason, no memory bodies"
run cairn --now 2026-11-29T12:03:00Z explain "the glacier custard incident"

step "Dormant is not gone: asked, recall shows it labelled when nothing current answers; injected, it stays out"
run cairn --now 2026-11-29T12:04:00Z recall "sprint board"
run cairn --now 2026-11-29T12:04:00Z recall "sprint board" --inject
run cairn --now 2026-11-29T12:04:00Z search "sprint board"

step "No recency fallback: a context-free query returns nothing, and says so"
run cairn --now 2026-11-29T12:05:00Z recall "ok, thanks"
