# Records, the event log and undo.
step "Remember a few memories, each with its evidence"
run cairn --now 2026-11-01T09:00:00Z remember "The API service is deployed with Docker Compose on the staging host" \
    --kind fact --origin acme/api --basis tool_observation --method agent --source ci-run-4411 --alias deployment
run cairn --now 2026-11-01T09:05:00Z remember "Prefer pytest fixtures over setUp methods in new tests" \
    --kind preference --origin acme/api --alias testing
DECISION=$(cairn --now 2026-11-02T10:00:00Z --json remember "Use PostgreSQL 16 for the billing database" \
    --kind decision --origin acme/billing --source adr-007 | json_field id)
echo "decision id: $DECISION"
run cairn --now 2026-11-02T10:01:00Z remember "deploy token is password=hunter2-very-secret" --kind fact --origin acme/api

step "List them (note the redacted secret)"
run cairn --now 2026-11-29T12:00:00Z list

step "Show one, with its quality at read time"
run cairn --now 2026-11-29T12:00:00Z show "${DECISION:0:8}"

step "Forget it, then undo the forget"
FORGET=$(cairn --now 2026-11-29T12:05:00Z --json forget "$DECISION" | json_field event)
echo "forget event: $FORGET"
run cairn --now 2026-11-29T12:06:00Z undo "$FORGET"
run cairn --now 2026-11-29T12:07:00Z list --status provisional

step "History of that record, newest first"
run cairn history "$DECISION"
