"""The PostgreSQL store's bulk path (``COPY`` of the records new to the store, one by one
for the others) leaves the store as the SQLite store leaves it after the same batch:
the same records and export, the same event log (gap-free, in order, with its record
links), the same per-space document frequencies and record count, and the same postings
per term, newest first. The batch mixes records new to the store, records already stored,
a record given twice, episodes (turn positions), a purged record (not indexed) and text
that ``COPY``'s and ``tsvector``'s own syntax would misread if left unescaped."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import psycopg
import pytest

from cairn import Cairn
from cairn.store.postgres.backend import copy_field, posting_slices, tsvector_text
from cairn.text import index_text
from testkit import Clock

from .test_parity import CONVERSATION

AWKWARD = ["Path C:\\tmp\\new has a backslash and a tab\there", "O'Brien's \"quoted\" note, it's 'single' too",
           "Line one\nline two\r\nline three", "Ünïcödé café naïve résumé 東京 deploy", "Backslash at the end \\",
           "Percent %s and %(name)s and {braces} in the billing ledger", "Pipe | ampersand & bang ! colon :* tsquery"]


def _seed(tmp_path) -> tuple[list, list]:
    """Records and events written by the engine into a SQLite store: the batch to replay."""
    with Cairn(tmp_path / "seed.db", now=Clock()) as cairn:
        for n, text in enumerate(AWKWARD):
            cairn.remember(text, kind="fact", aliases=[f"alias{n}", "O'Brien \\ tab\tname"])
        for n in range(12):
            cairn.remember(f"Bulk record {n} on billing ledger exports, release {n % 3}", kind="fact")
        cairn.ingest(CONVERSATION, format="locomo", progress=False)
        cairn.forget(cairn.remember("A secret to purge from the ledger", kind="fact").memory.id, purge=True)
        # The clock stands still, so the store's order (created_at, then the random id)
        # would be a new shuffle each run, and _replay's amended and repeated records
        # would sometimes be the only one that answers "tab backslash": a fixed order
        # puts the plain bulk records where _replay rewrites them.
        memories = sorted(cairn.store.iter_memories(cairn.space),
                          key=lambda m: (not m.content.startswith("Bulk record"), m.content, m.id))
        events = cairn.store.events(cairn.space, newest_first=False)
    return memories, events


def _replay(cairn: Cairn, memories: list, events: list) -> None:
    """Three records stored first, one by one; then one batch: one of those three amended
    in place, every other record, and one of them given a second time, amended."""
    with cairn.store.write() as tx:
        for memory in memories[:3]:
            tx.put_memory(memory)
    batch = [replace(memories[0], content=memories[0].content + " amended")] + memories[3:]
    batch.insert(9, replace(memories[5], content="Given twice in one batch, billing ledger"))
    with cairn.store.write() as tx:
        tx.put_memories(batch)
        tx.append_events(events)


def _state(cairn: Cairn) -> dict:
    store, space = cairn.store, cairn.space
    buf = io.StringIO()
    cairn.export(buf)
    memories = list(store.iter_memories(space))
    terms = sorted({t for m in memories for t in index_text(m.content + " " + " ".join(m.aliases)).split()})

    def ids(keys) -> list[str]:
        return [m.id for m in store.load_ranked(space, keys, claims_only=False, limit=len(keys) + 1)]

    return {
        "export": buf.getvalue().splitlines(),
        "log": [(e.id, e.reason) for e in store.events(space, newest_first=False)],
        "links": {m.id: [e.id for e in store.events(space, record_id=m.id)] for m in memories},
        "documents": store.space_document_count(space),
        "frequencies": store.space_document_frequencies(space, terms),
        "postings": {t: ids(store.term_postings(t, 1000)) for t in terms},
        "turns": [(t.id, t.turn) for t in store.speaker_turns(space, "ana", 50)],
        "answers": [cairn.search(q, trace=False).ids for q in ("billing ledger exports", "O'Brien quoted", "tab backslash")],
    }


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return _seed(tmp_path_factory.mktemp("copy"))


def test_a_mixed_batch_leaves_postgres_as_it_leaves_sqlite(tmp_path, pg_url, seeded):
    states = []
    for target in (tmp_path / "lite.db", pg_url):
        with Cairn(target, now=Clock()) as cairn:
            _replay(cairn, *seeded)
            states.append(_state(cairn))
    lite, pg = states
    assert len(lite["export"]) > 40 and len(lite["log"]) >= 8 and lite["turns"]
    assert "amended" in "".join(lite["export"]) and "Given twice" in "".join(lite["export"])
    assert all(lite["answers"])
    for part in lite:
        assert pg[part] == lite[part], part
    with psycopg.connect(pg_url) as conn:
        seqs = [r[0] for r in conn.execute("SELECT seq FROM events ORDER BY seq")]
        counts = conn.execute("SELECT (SELECT count(*) FROM memory_index), (SELECT rows FROM index_totals)").fetchone()
    assert seqs == list(range(1, len(lite["log"]) + 1))  # gap-free, in the order given
    assert counts == (lite["documents"], lite["documents"])


def test_the_comparison_sees_a_lost_posting_and_a_wrong_frequency(tmp_path, pg_url, seeded):
    """Negative control: the same replay, then one posting deleted and one frequency
    changed behind the store's back; the states no longer compare equal, part by part."""
    ledger, billing = index_text("ledger"), index_text("billing")
    states = []
    for target in (tmp_path / "lite.db", pg_url):
        with Cairn(target, now=Clock()) as cairn:
            _replay(cairn, *seeded)
            if target == pg_url:
                with psycopg.connect(pg_url) as conn:
                    conn.execute("DELETE FROM term_postings WHERE term = %s AND key ="
                                 " (SELECT max(key) FROM term_postings WHERE term = %s)", (ledger, ledger))
                    conn.execute("UPDATE term_df SET anywhere = anywhere + 1 WHERE term = %s", (billing,))
            states.append(_state(cairn))
    lite, pg = states
    assert len(lite["postings"][ledger]) > 10
    assert pg["postings"][ledger] == lite["postings"][ledger][1:]
    assert pg["frequencies"][billing] == lite["frequencies"][billing] + 1
    assert pg["export"] == lite["export"]  # what the tampering did not touch still agrees


def _posting_text(rows: list[tuple[str, int, str]], size: int = 8192) -> list[str]:
    """posting_slices of ``rows`` (term, key, space), grouped as the bulk write groups them."""
    grouped: dict[str, list[str]] = {}
    for term, key, space in rows:
        grouped.setdefault(term, []).append(f"\t{key}\t{copy_field(space)}\n")
    return list(posting_slices(grouped, size))


@pytest.mark.parametrize("found", [[], ["plain"], ["plain", "_alias"], ["it's", "o''brien"], ["back\\slash", "_c:\\tmp"],
                                   ["東京", "café", "_ünï"]])
def test_the_copy_forms_read_back_as_the_server_builds_them(pg_url, found):
    """A record's lexemes as COPY sends them equal what array_to_tsvector builds; a
    posting row's text (escaped by hand for one large write) reads back as written."""
    rows = [(term, n, "space\twith\\ tab\nand newline") for n, term in enumerate(found)]
    with psycopg.connect(pg_url) as conn:
        same = conn.execute("SELECT %s::tsvector = array_to_tsvector(%s::text[])", (tsvector_text(found), found)).fetchone()
        conn.execute("CREATE TEMP TABLE t (term text, key bigint, space text)")
        with conn.cursor().copy("COPY t FROM STDIN") as copy:
            for text in _posting_text(rows):
                copy.write(text)
        back = conn.execute("SELECT term, key, space FROM t ORDER BY key").fetchall()
    assert same == (True,)
    assert back == rows


def test_an_unescaped_form_does_not_read_back(pg_url):
    """Negative control: the check above can fail: a backslash left unescaped in a
    lexeme escapes the next character, and the server builds another lexeme."""
    with psycopg.connect(pg_url) as conn:
        naive = conn.execute("SELECT %s::tsvector = array_to_tsvector(%s::text[])", ("'back\\slash'", ["back\\slash"]))
        assert naive.fetchone() == (False,)


@pytest.mark.parametrize("rows", [
    [("plain", 1, "default"), ("café", 2, "东京")],  # nothing to escape: written as they are
    [("plain", 1, "default"), ("car\rriage", 2, "default")],  # one field of one row to escape
    [("tab\tin", 1, "default"), ("plain", 2, "new\nline")],
    [("plain", 1, "back\\slash"), ("x", 2, "y")],
])
def test_posting_rows_read_back_as_written_whether_or_not_any_needs_escaping(pg_url, rows):
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TEMP TABLE t (term text, key bigint, space text)")
        with conn.cursor().copy("COPY t FROM STDIN") as copy:
            for text in _posting_text(rows):
                copy.write(text)
        assert conn.execute("SELECT term, key, space FROM t ORDER BY key").fetchall() == rows
    # Control: written unescaped, the rows that need it do not read back.
    plain = "".join(f"{a}\t{b}\t{c}\n" for a, b, c in sorted(rows))
    assert (plain == "".join(_posting_text(rows))) == (rows[0][0] == "plain" and rows[1][0] == "café")


def test_posting_rows_come_in_term_then_key_order_a_slice_at_a_time():
    """The bulk write's postings reach the server sorted by term, each term's rows in the
    order they were added (key order), cut into pieces of about ``size`` rows between terms."""
    rows = [("b", 1, "s"), ("a", 1, "s"), ("b", 2, "s"), ("c", 2, "s"), ("a", 3, "s"), ("b", 3, "s")]
    pieces = _posting_text(rows, size=2)
    assert "".join(pieces) == "a\t1\ts\na\t3\ts\nb\t1\ts\nb\t2\ts\nb\t3\ts\nc\t2\ts\n"
    assert pieces == ["a\t1\ts\na\t3\ts\n", "b\t1\ts\nb\t2\ts\nb\t3\ts\n", "c\t2\ts\n"]
    assert len(_posting_text(rows)) == 1  # control: one piece when all fit


def test_a_bulk_event_spliced_from_stored_records_is_stored_as_encoded_whole(pg_url):
    """An ingest's event repeats every turn it wrote; the store splices in each turn's
    stored JSON (append_encoded) rather than encoding it again: the stored body is byte
    for byte the event encoded whole."""
    from cairn.model import event_to_dict
    from cairn.store.postgres.backend import PgTx
    from cairn.store.sqlite.backend import dumps

    seen: list = []
    real = PgTx.append_encoded

    def spy(tx, event, texts):
        seen.append((event, dict(texts)))
        real(tx, event, texts)

    with pytest.MonkeyPatch.context() as patch, Cairn(pg_url, now=Clock()) as c:
        patch.setattr(PgTx, "append_encoded", spy)
        turns = [{"id": f"t{n}", "speaker": "user", "time": f"2026-01-0{n % 9 + 1}T10:00:00Z",
                  "text": f'Turn {n} about the "ledger" \u2615'} for n in range(12)]
        c.ingest(io.StringIO("".join(json.dumps(turn) + "\n" for turn in turns)), origin="chat")
        (event, texts), = [(e, t) for e, t in seen if t]  # control: the spliced path was taken
        assert len(texts) == 12
        with psycopg.connect(pg_url) as conn:
            (stored,), = conn.execute("SELECT data FROM events WHERE id = %s", (event.id,)).fetchall()
        assert stored == dumps(event_to_dict(event))
        wrong = {key: text.replace("Turn", "Tern") for key, text in texts.items()}  # control: the texts are used
        with c.store.write() as tx:
            assert isinstance(tx, PgTx)
            real(tx, replace(event, id="other"), wrong)
        with psycopg.connect(pg_url) as conn:
            (other,), = conn.execute("SELECT data FROM events WHERE id = 'other'").fetchall()
        assert "Tern" in other and other != dumps(event_to_dict(event)).replace(event.id, "other")
