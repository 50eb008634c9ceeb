"""The pages of ``cairn ui``: plain server-rendered HTML over the API's own documents.

Every page reads through the API routes (``fetch``), so a page shows exactly what a script
would get. Every value that comes from the store goes through :func:`esc` (``html.escape``,
quotes included): memory text is untrusted and is rendered as text, never as markup. A
purged record shows that it was purged and nothing of its content. Writes are buttons
that ``static/app.js`` turns into API calls carrying the session's CSRF token.

Pages: ``/`` records (search and filters), ``/records/ID`` one record (evidence, quality,
relations, history with undo, correct / pin / feedback / forget), ``/conflicted`` the
quarantined records to keep, replace or dismiss, ``/recall`` the digest an agent would
get beside the explain numbers, ``/history`` the space's events with undo.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote, urlencode

from ..errors import NotFound
from ..model import Kind, Status, Verdict

Fetch = Callable[[str, str, Mapping[str, Any]], Mapping[str, Any]]
EXCERPT = 160  # characters of a record's text in a list row


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


def _link(memory_id: str, label: str | None = None) -> str:
    return f'<a href="/records/{quote(memory_id)}">{esc(label or memory_id[:10])}</a>'


def layout(title: str, body: str, csrf: str, *, active: str = "") -> str:
    tabs = [("/", "Records"), ("/conflicted", "Conflicted"), ("/recall", "Recall"), ("/history", "History")]
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
<section><h2>Quality</h2><dl class="grid">{quality}</dl></section></div>
<h2>Relations</h2><ul class="relations">{relations}</ul>
<h2>History</h2>{_history(history['events'])}"""
    return layout(title, body, csrf)


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


def history_page(fetch: Fetch, csrf: str) -> str:
    doc = fetch("GET", "/api/history", {"limit": 100})
    return layout("History", _history(doc["events"]), csrf, active="/history")


def render(path: str, query: Mapping[str, list[str]], fetch: Fetch, csrf: str) -> str:
    """The page at ``path``; :class:`~cairn.errors.NotFound` for no page there."""
    q = {k: v[-1] for k, v in query.items()}
    if path == "/":
        return records_page(q, fetch, csrf)
    if path.startswith("/records/") and path.count("/") == 2:
        return record_page(unquote(path.removeprefix("/records/")), fetch, csrf)
    if path == "/conflicted":
        return conflicted_page(q, fetch, csrf)
    if path == "/recall":
        return recall_page(q, csrf)
    if path == "/history":
        return history_page(fetch, csrf)
    raise NotFound("page", path)
