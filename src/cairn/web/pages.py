"""The pages of ``cairn ui``: plain server-rendered HTML over the API's own documents.

Every page reads through the API routes (``fetch``), so a page shows exactly what a script
would get. Every value that comes from the store goes through :func:`esc` (``html.escape``,
quotes included): memory text is untrusted and is rendered as text, never as markup. A
purged record shows that it was purged and nothing of its content. Writes are buttons
that ``static/app.js`` turns into API calls carrying the session's CSRF token.

Pages: ``/`` records (search and filters), ``/records/ID`` one record (evidence, quality,
confidence, relations, its subject's timeline, history with undo, correct / pin / feedback
/ forget), ``/conflicted`` the quarantined records to keep, replace or dismiss, ``/recall``
the digest an agent would get beside the explain numbers, ``/review`` the maintenance
recommendations to select and apply, ``/retention`` what each retention policy would
retire and why, to apply; ``/history`` the space's events with undo.

A plan page carries the plan it shows (``data-plan``, the API's own document, escaped as
an attribute): what a person applies is what they read, less what they deselected, never a
plan recomputed behind their back.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote, urlencode

from ..errors import InvalidInput, NotFound
from ..model import Kind, Status, Verdict

Fetch = Callable[[str, str, Mapping[str, Any]], Mapping[str, Any]]
EXCERPT = 160  # characters of a record's text in a list row
PLAN_ROWS = 300  # rows of a plan shown on a page; the rest is counted, and `cairn maintain` / `retention` show all
TIMELINE_ROWS = 20  # states of a record's subject shown on its page

# The rule behind each maintenance recommendation, in the words of docs/trust.md
# (cairn.policy.maintenance); a test checks every op the engine can plan has one.
RULES = {
    "review_memory": "1+ explicit corrections: a person should look again",
    "decrease_stability": "1+ explicit corrections: one stability level down",
    "mark_contested_suggestion": "2+ explicit corrections: quarantine it (status conflicted)",
    "increase_stability": "2+ explicit reinforcements and no correction: one stability level up",
    "flag_for_review": "5+ implicit successes and no correction: worth a look (capped at semi-stable)",
    "review_due": "overdue for review at its stability's cadence (30 / 90 / 180 days)",
    "confidence_decay": "overdue for review: confidence decays per overdue cycle",
}


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


def _link(memory_id: str, label: str | None = None) -> str:
    return f'<a href="/records/{quote(memory_id)}">{esc(label or memory_id[:10])}</a>'


def layout(title: str, body: str, csrf: str, *, active: str = "") -> str:
    tabs = [("/", "Records"), ("/conflicted", "Conflicted"), ("/recall", "Recall"), ("/review", "Review"),
            ("/retention", "Retention"), ("/history", "History")]
    nav = "".join(
        f'<a href="{href}"{" aria-current=page" if href == active else ""}>{label}</a>' for href, label in tabs)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="{esc(csrf)}"><title>{esc(title)} · Cairn</title>
<link rel="stylesheet" href="/static/app.css"><script src="/static/app.js" defer></script></head>
<body><header><strong class="brand">Cairn</strong><nav>{nav}<a href="/api/openapi.json">API</a></nav>
<form method="post" action="/logout" class="logout" data-logout><button type="submit">Log out</button></form></header>
<p id="message" role="status" aria-live="polite"></p>
<main><h1>{esc(title)}</h1>{body}</main></body></html>"""


def login_page(failed: bool) -> str:
    reason = ("<p role=alert>That login token is wrong or was already used. Each printed URL logs in once;"
              " restart <code>cairn ui</code> for a new one.</p>") if failed else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Log in · Cairn</title><link rel="stylesheet" href="/static/app.css">
</head><body><main class="login"><h1>Cairn</h1>{reason}
<p>Open the URL that <code>cairn ui</code> printed, or paste its token:</p>
<form method="get" action="/login"><label>Login token <input name="token" autocomplete="off" required autofocus></label>
<button type="submit">Log in</button></form></main></body></html>"""


def error_page(status: int, message: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{status} · Cairn</title><link rel="stylesheet" href="/static/app.css">
</head><body><main><h1>{status}</h1><p role=alert>{esc(message)}</p><p><a href="/">Back to the records</a></p>
</main></body></html>"""


def _select(name: str, values: Sequence[str], chosen: str) -> str:
    options = "".join(f'<option value="{esc(v)}"{" selected" if v == chosen else ""}>{esc(v or "any")}</option>'
                      for v in ("", *values))
    return f'<label>{name} <select name="{name}">{options}</select></label>'


def _records_table(memories: Sequence[Mapping[str, Any]], *, actions: Callable[[Mapping[str, Any]], str] | None = None) -> str:
    if not memories:
        return "<p>No records.</p>"
    head = "<th>Id</th><th>Kind</th><th>Status</th><th>Origin</th><th>Text</th><th>Updated</th>"
    rows = []
    for m in memories:
        text = "<em>purged</em>" if m["purged_at"] else esc(_excerpt(m["content"]))
        extra = f"<td>{actions(m)}</td>" if actions else ""
        rows.append(f'<tr data-id="{esc(m["id"])}"><td>{_link(m["id"])}</td><td>{esc(m["kind"])}</td>'
                    f'<td>{esc(m["status"])}</td><td>{esc(m["origin"])}</td><td class="text">{text}</td>'
                    f'<td>{esc((m["updated_at"] or "")[:16])}</td>{extra}</tr>')
    return f'<table><thead><tr>{head}{"<th>Resolve</th>" if actions else ""}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _pager(path: str, filters: Mapping[str, str], doc: Mapping[str, Any]) -> str:
    if doc["pages"] <= 1:
        return f'<p class="count">{doc["total"]} records</p>'
    links = []
    for page, label in ((doc["page"] - 1, "← previous"), (doc["page"] + 1, "next →")):
        if 1 <= page <= doc["pages"]:
            links.append(f'<a href="{path}?{esc(urlencode({**filters, "page": page}))}">{label}</a>')
    return f'<p class="count">{doc["total"]} records, page {doc["page"]} of {doc["pages"]} {" ".join(links)}</p>'


def records_page(query: Mapping[str, str], fetch: Fetch, csrf: str) -> str:
    filters = {k: query[k] for k in ("text", "kind", "status", "origin") if query.get(k)}
    page = int(query["page"]) if query.get("page", "").isdigit() else 1
    doc = fetch("GET", "/api/records", {**filters, "page": page})
    form = f"""<form method="get" action="/" class="filters" role="search">
<label>Search <input type="search" name="text" value="{esc(filters.get("text", ""))}" accesskey="s"
 placeholder="words (press /)"></label>
{_select("kind", [k.value for k in Kind], filters.get("kind", ""))}
{_select("status", [s.value for s in Status], filters.get("status", ""))}
<label>origin <input name="origin" value="{esc(filters.get("origin", ""))}" size="12"></label>
<button type="submit">Filter</button></form>"""
    body = form + _records_table(doc["memories"]) + _pager("/", filters, doc)
    return layout("Records", body, csrf, active="/")


def _evidence(e: Mapping[str, Any]) -> str:
    return (f"<dl class=grid><dt>basis</dt><dd>{esc(e['basis'])}</dd><dt>method</dt><dd>{esc(e['method'])}</dd>"
            f"<dt>source</dt><dd>{esc(e['source_id'] or '—')}</dd><dt>at</dt><dd>{esc(e['at'] or '—')}</dd></dl>")


def _history(events: Sequence[Mapping[str, Any]]) -> str:
    if not events:
        return "<p>No events.</p>"
    rows = []
    for e in events:
        changed = " ".join(_link(c) for c in e["changed"])
        rows.append(f'<tr><td><code>{esc(e["id"][:10])}</code></td><td>{esc(e["at"][:19])}</td><td>{esc(e["actor"])}</td>'
                    f'<td>{esc(e["reason"])}</td><td>{changed}</td><td><button type="button" data-action="undo"'
                    f' data-event="{esc(e["id"])}">Undo</button></td></tr>')
    return ("<table class=history><thead><tr><th>Event</th><th>At</th><th>Actor</th><th>What</th><th>Records</th>"
            f"<th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def record_page(memory_id: str, fetch: Fetch, csrf: str) -> str:
    doc = fetch("GET", f"/api/records/{quote(memory_id)}", {})
    m, q = doc["memory"], doc["quality"]
    history = fetch("GET", f"/api/records/{quote(m['id'])}/history", {"limit": 50})
    title = f"Record {m['id'][:10]}"
    if m["purged_at"]:
        body = (f"<p class=purged>This record was purged at {esc(m['purged_at'])}: its content is erased from the"
                " store, the index and the history.</p>")
        return layout(title, body + "<h2>History</h2>" + _history(history["events"]), csrf)
    facts = [("id", m["id"]), ("kind", m["kind"]), ("status", m["status"]), ("layer", m["layer"]),
             ("origin", m["origin"] or "—"), ("certainty", m["certainty"] or "—"),
             ("valid", f"{m['valid_from'] or '…'} → {m['valid_to'] or 'open'}"), ("created", m["created_at"]),
             ("updated", m["updated_at"]), ("revision", m["revision"]),
             ("aliases", ", ".join(m["aliases"]) or "—")]
    grid = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    quality = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in q.items())
    def end(other: str) -> str:
        return "<em>this record</em>" if other == m["id"] else _link(other)

    # Relations read newer → older: "X supersedes this record" means X replaced it.
    relations = "".join(
        f"<li>{end(r['from'])} <strong>{esc(r['role'])}</strong> {end(r['to'])}"
        f" <span class=muted>({esc(r['status'])}, {esc((r['created_at'] or '')[:10])})</span></li>"
        for r in doc["relations"]) or "<li>none</li>"
    confidence = _confidence(doc.get("confidence"))
    pin = "unpin" if m["layer"] == "pinned" else "pin"
    verdicts = "".join(f'<button type="button" data-action="feedback" data-id="{esc(m["id"])}" data-verdict="{v.value}">'
                       f"{v.value}</button>" for v in Verdict)
    editable = m["kind"] != "episode" and m["status"] not in ("forgotten", "retired")
    correct = (f"""<form class="correct" data-action="correct" data-id="{esc(m['id'])}">
<label for="correct-text">Correct the text (your words; recorded as a manual correction)</label>
<textarea id="correct-text" name="text" rows="3" maxlength="800" required>{esc(m['content'])}</textarea>
<button type="submit">Save correction</button></form>""" if editable else "")
    body = f"""<blockquote class="content" id="content">{esc(m['content'])}</blockquote>
<div class="actions">
<button type="button" data-action="{pin}" data-id="{esc(m['id'])}">{pin.capitalize()}</button>
<span class="verdicts">Feedback: {verdicts}</span>
<button type="button" data-action="forget" data-id="{esc(m['id'])}">Forget</button>
</div>{correct}
<div class="columns"><section><h2>Record</h2><dl class="grid">{grid}</dl><h2>Evidence</h2>{_evidence(m['evidence'])}</section>
<section><h2>Confidence</h2>{confidence}<h2>Quality</h2><dl class="grid">{quality}</dl></section></div>
<h2>Relations</h2><ul class="relations">{relations}</ul>
<h2>Timeline</h2>{_timeline(m, fetch)}
<h2>History</h2>{_history(history['events'])}"""
    return layout(title, body, csrf)


def _confidence(doc: Mapping[str, Any] | None) -> str:
    if not doc:
        return "<p class=muted>Not computed for this kind of record.</p>"
    grounds = "".join(f"<tr><td>{esc(g['name'])}</td><td>{g['contribution']:+.2f}</td><td>{esc(g['detail'])}</td></tr>"
                      for g in doc["grounds"])
    return (f'<p class="confidence"><strong>{esc(doc["level"])}</strong> ({doc["score"]:.2f}); never a ranking input</p>'
            f"<table class=grounds><thead><tr><th>Ground</th><th>Moved it</th><th>Why</th></tr></thead>"
            f"<tbody>{grounds}</tbody></table>")


def _timeline(m: Mapping[str, Any], fetch: Fetch) -> str:
    """The successive states of this record's subject (what replaced what, each valid interval):
    the API's timeline for the record's own words, which always finds the record itself."""
    try:
        doc = fetch("GET", "/api/timeline", {"query": m["content"][:800], "limit": TIMELINE_ROWS})
    except InvalidInput:  # a text of stopwords names no subject
        return "<p class=muted>No subject to follow in this text.</p>"
    rows = []
    for st in doc["states"]:
        here = st["id"] == m["id"]
        replaced = " ".join(_link(i) for i in st["replaced_by"]) or "—"
        rows.append(f'<tr{" class=here" if here else ""}><td>{_link(st["id"]) if not here else "<em>this record</em>"}</td>'
                    f'<td>{esc(st["valid_from"] or "…")} → {esc(st["valid_to"] or "open")}</td><td>{esc(st["status"])}'
                    f'{" · current" if st["current"] else ""}</td><td class="text">{esc(_excerpt(st["content"]))}</td>'
                    f"<td>{replaced}</td></tr>")
    if len(rows) <= 1:
        return "<p class=muted>Nothing replaced this record and it replaced nothing.</p>"
    return ("<table class=timeline><thead><tr><th>State</th><th>Valid</th><th>Now</th><th>Text</th>"
            f"<th>Replaced by</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def conflicted_page(query: Mapping[str, str], fetch: Fetch, csrf: str) -> str:
    page = int(query["page"]) if query.get("page", "").isdigit() else 1
    doc = fetch("GET", "/api/conflicted", {"page": page})

    def resolve(m: Mapping[str, Any]) -> str:
        i = esc(m["id"])
        return (f'<button type="button" data-action="keep" data-id="{i}">Keep</button> '
                f'<input aria-label="replacement text for {i[:10]}" name="replace-{i}" maxlength="800"'
                f' placeholder="corrected text"> <button type="button" data-action="replace" data-id="{i}">Replace</button> '
                f'<button type="button" data-action="dismiss" data-id="{i}">Dismiss</button>')

    intro = ("<p>Quarantined records: a claim withheld because a stronger one stands, or one judged incorrect."
             " <strong>Keep</strong> confirms its text as yours, <strong>Replace</strong> corrects it with yours,"
             " <strong>Dismiss</strong> forgets it. Each is an event you can undo.</p>")
    return layout("Conflicted records", intro + _records_table(doc["memories"], actions=resolve)
                  + _pager("/conflicted", {}, doc), csrf, active="/conflicted")


def recall_page(query: Mapping[str, str], csrf: str) -> str:
    body = f"""<form id="recall-form" class="filters" role="search">
<label>Query <input type="search" name="query" id="recall-query" value="{esc(query.get('query', ''))}" required
 maxlength="800" size="50" accesskey="r"></label>
<label><input type="checkbox" name="include_dormant"> dormant too</label>
<button type="submit">Recall</button></form>
<p class="muted">What an agent would get for this query, and beside it the explain numbers: every candidate, its
score and why it was kept or left out. A recall writes a trace, like the agent's.</p>
<div class="columns"><section><h2>Digest</h2><pre id="digest" class="digest"></pre><ol id="results"></ol></section>
<section><h2>Explain</h2><table id="explain"><thead><tr><th>Id</th><th>Lane</th><th>Raw</th><th>Rank</th>
<th>Reason</th></tr></thead><tbody></tbody></table><p id="explain-note" class="muted"></p></section></div>"""
    return layout("Recall", body, csrf, active="/recall")


def _records_by_id(ids: Sequence[str], fetch: Fetch) -> dict[str, Mapping[str, Any]]:
    """The records a plan names, read through the API in one call (a plan page shows at most
    :data:`PLAN_ROWS` rows). A record gone since the plan is left out."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    doc = fetch("GET", "/api/records", {"ids": ",".join(wanted), "per_page": len(wanted)})
    return {m["id"]: m for m in doc["memories"]}


def _plan_record(i: str, records: Mapping[str, Mapping[str, Any]]) -> str:
    m = records.get(i)
    if m is None:
        return f"<code>{esc(i[:10])}</code> <em>gone</em>"
    text = "<em>purged</em>" if m["purged_at"] else esc(_excerpt(m["content"]))
    return f'{_link(i)} <span class="muted">{esc(m["kind"])}, {esc(m["status"])}</span><br><span class="text">{text}</span>'


def _plan_form(kind: str, plan: Mapping[str, Any], inner: str, buttons: str) -> str:
    data = esc(json.dumps(plan, ensure_ascii=False))
    return (f'<form class="plan" id="plan-form" data-kind="{kind}" data-plan="{data}">{inner}'
            f'<div class="actions">{buttons}</div></form>')


def _more(total: int) -> str:
    return (f"<p class=muted>Showing {PLAN_ROWS} of {total}: apply these first, or see all with the CLI.</p>"
            if total > PLAN_ROWS else "")


def review_page(fetch: Fetch, csrf: str) -> str:
    plan = fetch("GET", "/api/maintenance/plan", {})
    ops = plan["ops"][:PLAN_ROWS]
    intro = (f"<p>{len(plan['ops'])} recommendation(s) over {plan['records']} active claim(s), from their"
             " reinforcements and review cadence. Select the ones you agree with and apply them: one event,"
             " undoable. <strong>Apply the low-risk ones</strong> applies only confidence decay and stability"
             " increases, as <code>cairn maintain --apply --auto</code>.</p>")
    if not ops:
        return layout("Review maintenance", intro + "<p>No recommendations.</p>", csrf, active="/review")
    records = _records_by_id([o["id"] for o in ops], fetch)
    rows, previous = [], None
    for n, o in enumerate(ops):
        change = f"{o.get('from')} → {o.get('to')}" if o.get("to") else (f"−{o['decay']}" if o.get("decay") else "")
        label = f"{o['op']} for {o['id'][:10]}"
        rows.append(f'<tr data-id="{esc(o["id"])}" data-op="{esc(o["op"])}">'
                    f'<td><input type="checkbox" name="select" value="{n}" aria-label="select {esc(label)}"></td>'
                    f'<td>{_plan_record(o["id"], records) if o["id"] != previous else ""}</td>'
                    f'<td><strong>{esc(o["op"])}</strong> {esc(change)}</td><td>{esc(RULES.get(o["op"], "—"))}</td>'
                    f'<td>{esc(o["reason"])}</td><td class="risk-{esc(o["risk"])}">{esc(o["risk"])}</td></tr>')
        previous = o["id"]
    table = ("<table><thead><tr><th>Apply</th><th>Record</th><th>Recommendation</th><th>Rule</th><th>Grounds</th>"
             f"<th>Risk</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{_more(len(plan['ops']))}")
    buttons = ('<button type="submit">Apply selected</button>'
               '<button type="button" data-action="apply-auto">Apply the low-risk ones (auto)</button>')
    return layout("Review maintenance", intro + _plan_form("maintenance", plan, table, buttons), csrf, active="/review")


POLICY_EXAMPLE = """[[policy]]
name = "stale project state"
kind = "project_state"
older_than_days = 30
no_use_report = true"""


def retention_page(query: Mapping[str, str], fetch: Fetch, csrf: str, declared: str | None) -> str:
    text = query["policies"] if "policies" in query else (declared or "")
    source = ("the policies this server was started with (<code>--retention</code>); edit them here to try others"
              if declared is not None and "policies" not in query else "TOML, as <code>cairn retention plan</code> reads")
    form = f"""<form method="get" action="/retention" class="policies">
<label for="policies">Retention policies: {source}</label>
<textarea id="policies" name="policies" rows="7" cols="72" spellcheck="false"
 placeholder="{esc(POLICY_EXAMPLE)}">{esc(text)}</textarea>
<div><button type="submit">Plan</button></div></form>"""
    intro = ("<p>What each policy would retire, and why. Retired is not deleted: a retired record leaves recall and"
             " comes back under search. Pinned, forgotten and purged records are outside every policy. Applying is"
             " one event, undoable; a record changed since the plan is skipped.</p>")
    if not text.strip():
        return layout("Retention", intro + form, csrf, active="/retention")
    try:
        plan = fetch("POST", "/api/retention/plan", {"policies": text})
    except InvalidInput as err:
        return layout("Retention", intro + form + f'<p role="alert" class="error">{esc(err)}</p>', csrf,
                      active="/retention")
    matches = plan["matches"][:PLAN_ROWS]
    records = _records_by_id([r["id"] for r in matches], fetch)
    sections = []
    for name in plan["policies"]:
        rows = [f'<tr data-id="{esc(r["id"])}"><td><input type="checkbox" name="select" value="{n}"'
                f' aria-label="select {esc(r["id"][:10])} under {esc(name)}"></td>'
                f'<td>{_plan_record(r["id"], records)}</td><td>{esc(r["reason"])}</td></tr>'
                for n, r in enumerate(matches) if r["policy"] == name]
        body = (f"<table><thead><tr><th>Retire</th><th>Record</th><th>Why it matches</th></tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>" if rows else "<p>No records match.</p>")
        sections.append(f'<section class="policy"><h2>{esc(name)}: {len(rows)} match(es)</h2>{body}</section>')
    summary = f"<p class=count>{len(plan['matches'])} of {plan['records']} record(s) match.</p>"
    buttons = ('<button type="submit">Retire selected</button>'
               f'<button type="button" data-action="apply-all">Retire all {len(plan["matches"])}</button>'
               if plan["matches"] else "")
    inner = summary + "".join(sections) + _more(len(plan["matches"]))
    return layout("Retention", intro + form + _plan_form("retention", plan, inner, buttons), csrf, active="/retention")


def history_page(fetch: Fetch, csrf: str) -> str:
    doc = fetch("GET", "/api/history", {"limit": 100})
    return layout("History", _history(doc["events"]), csrf, active="/history")


def render(path: str, query: Mapping[str, list[str]], fetch: Fetch, csrf: str, *, policies: str | None = None) -> str:
    """The page at ``path``; :class:`~cairn.errors.NotFound` for no page there. ``policies``:
    the retention policies the server was started with, if any."""
    q = {k: v[-1] for k, v in query.items()}
    if path == "/":
        return records_page(q, fetch, csrf)
    if path.startswith("/records/") and path.count("/") == 2:
        return record_page(unquote(path.removeprefix("/records/")), fetch, csrf)
    if path == "/conflicted":
        return conflicted_page(q, fetch, csrf)
    if path == "/recall":
        return recall_page(q, csrf)
    if path == "/review":
        return review_page(fetch, csrf)
    if path == "/retention":
        return retention_page(q, fetch, csrf, policies)
    if path == "/history":
        return history_page(fetch, csrf)
    raise NotFound("page", path)
