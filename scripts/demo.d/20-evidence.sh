# Evidence and replacement authority: a weaker source is withheld, feedback is replay-safe,
# a literal correction is undone.
step "A manual correction is the strongest evidence (priority 4)"
PORT=$(cairn --now 2026-11-03T09:00:00Z --json remember "The staging database listens on port 5432" \
    --kind fact --origin acme/api --basis manual_correction --method manual --source ops-ticket-88 | json_field id)
echo "record: $PORT"

step "A later model summary proposes port 5433 in its place: weaker evidence, so it is withheld"
cat > .cairn-demo/batch-summary.json <<EOF
{"source": {"id": "summary-2026-11-05", "kind": "summary", "method": "model", "at": "2026-11-05T10:00:00Z",
            "origin": "acme/api",
            "text": "Session summary: the staging database listens on port 5433. The API service is deployed with Docker Compose on the staging host."},
 "claims": [{"kind": "fact", "content": "The staging database listens on port 5433", "replaces": "$PORT"}]}
EOF
run cat .cairn-demo/batch-summary.json
run cairn --now 2026-11-05T10:05:00Z candidates .cairn-demo/batch-summary.json
run cairn --now 2026-11-05T10:05:00Z apply .cairn-demo/batch-summary.json
echo "(the manual record stands; the summary's variant is kept, quarantined; the Docker record the"
echo " summary mentioned and left standing is confirmed: its freshness clock moved, with no event)"
run cairn --now 2026-11-05T10:05:00Z list --status conflicted
run cairn --now 2026-11-05T10:05:00Z history --limit 1

step "Explicit feedback is a receipt: the same act replayed is not counted twice"
run cairn --now 2026-11-06T08:00:00Z feedback "$PORT" useful --source chat-turn-12
run cairn --now 2026-11-06T08:00:01Z feedback "$PORT" useful --source chat-turn-12

step "A literal correction replaces the text and clears aliases and feedback"
CORRECTION=$(cairn --now 2026-11-07T09:00:00Z --json correct "$PORT" "The staging database listens on port 6432" | json_field event)
echo "correction event: $CORRECTION"
run cairn --now 2026-11-07T09:00:00Z show "${PORT:0:8}"

step "Undo the correction: the exact prior record comes back"
run cairn --now 2026-11-07T09:05:00Z undo "$CORRECTION"
run cairn --now 2026-11-07T09:05:00Z show "${PORT:0:8}"
