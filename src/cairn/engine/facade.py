"""The :class:`Cairn` facade: the one object every interface (CLI, MCP, HTTP, bench) calls.

It holds a :class:`~.scope.Scope` (one store, one space, one clock) and the parts built on
it, each given what it needs explicitly:

* :class:`~.relations.Relations` — relate, timeline
* :class:`~.records.Records` — remember, show, list, forget, pin, history, status
  (given the relations part: ``remember(relates=...)`` declares relations through it)
* :class:`~.undo.Undo`, :class:`~.transfer.Transfer`, :class:`~.learning.Learning`,
  :class:`~.recalling.Recalling`, :class:`~.ingesting.Ingesting`

Every public method below delegates to one part, so the facade holds no logic of its own.
Each part is built, and its module imported, on first use: a ``cairn recall`` process (one
per prompt under a host hook) imports the recall side only. The types named in method
annotations are therefore imported for the type checker alone; ``typing.get_type_hints``
needs them given as ``localns`` (tests/foundation/test_public_api.py does so).
Results are typed: writes return a result carrying the event they wrote (or the
:class:`~cairn.model.Event` itself); reads return model values or small frozen dataclasses;
the two reports (``explain``, ``status``) return their wire documents. :mod:`cairn.wire`
turns every result into its JSON form.

Threading: an engine belongs to the thread that opened it (see :mod:`.scope`).
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cached_property
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from ..errors import InvalidInput, echo
from ..model import Actor, Basis, Memory, Method
from ..recall.pack import PACK
from .recalling import SEARCH_BUDGET, SEARCH_LIMIT
from .scope import Clock, Scope
from .validate import (
    COUNT_MAX,
    TIMELINE_MAX,
    check_bool,
    check_int,
    check_number,
    check_str,
    check_strings,
    check_time_arg,
    input_errors,
)

# The parts and the types of their results are imported for the type checker only, and
# each part on its first use (see Cairn): a process that recalls pays neither for
# learning, ingest, archives and maintenance, nor for their result types.
if TYPE_CHECKING:
    from ..archive.catalog import Entry
    from ..archive.labels import Hint, LabelProblem, Recognised, Vocabulary
    from ..archive.rehydrate import Rehydrated
    from ..archive.verify import Verified
    from ..learn.batch import Batch
    from ..model import Certainty, Event, Kind, Role, Status, Verdict
    from ..policy.confidence import Confidence
    from ..policy.feedback import FeedbackMessage
    from ..recall.triage import Triage
    from ..store import Backend
    from ..wire import ExplainDoc, MaintenancePlanDoc, ReportSummaryDoc, RetentionPlanDoc, StatusDoc, TraceDoc
    from .archiving import Added, Archiving, Removed
    from .capturing import Capturing, Learned, Reinforcement, ReinforceResult
    from .embedding import Embedded
    from .embedding import Progress as EmbedProgress
    from .ingesting import Ingested, Ingesting, Progress
    from .labelling import Imported, Labelling
    from .learning import Applied, Corrected, FeedbackResult, Learning
    from .maintaining import Maintaining, PlanApplied
    from .recalling import Recalled, Recalling
    from .records import Confirmed, Page, Quality, Records, Remembered, RememberedMany, Shown, TextChange
    from .relations import Relations, Timeline
    from .reports import Reported, Reports
    from .transfer import Transfer, Transferred
    from .triaging import Triaging
    from .undo import Undo


@input_errors
class Cairn:
    """A memory store for one space of one database.

    ``Cairn(path)`` opens (and creates, with its folder) the SQLite database at ``path``,
    by default ``$CAIRN_DB`` or ``~/.local/share/cairn/cairn.db``. ``Cairn(store=backend)``
    uses a :class:`cairn.store.Backend` you opened instead. ``space`` is the hard isolation
    unit; ``now`` fixes the clock (a datetime, an ISO-8601 string or a callable), which
    tests and ``--now`` use; ``read_only`` opens without writing (recall then writes no
    trace); ``create=False`` refuses a database that does not exist yet
    (:class:`~cairn.errors.NoSuchDatabase`) instead of creating it. Use it as a context
    manager, or call :meth:`close`.

    Every argument is checked here: a wrong type or an out-of-range value raises
    :class:`~cairn.errors.InvalidInput` naming it, before anything is read or written.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        space: str = "default",
        now: datetime | str | Clock | None = None,
        read_only: bool = False,
        create: bool = True,
        busy_timeout: float | None = None,
        store: Backend | None = None,
    ) -> None:
        if busy_timeout is not None:
            check_number(busy_timeout, "busy_timeout", 0, 86_400)
        self.scope = Scope.open(
            path, space=space, now=now, read_only=read_only, create=create, busy_timeout=busy_timeout, store=store
        )

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, **options: Any) -> Cairn:
        """The same as ``Cairn(path, **options)``."""
        return cls(path, **options)

    def close(self) -> None:
        """Close the store. The engine cannot be used afterwards."""
        self.scope.close()

    def __enter__(self) -> Cairn:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- the parts, each built (and its module imported) on first use -----------------

    @cached_property
    def _relations(self) -> Relations:
        from .relations import Relations

        return Relations(self.scope)

    @cached_property
    def _records(self) -> Records:
        from .records import Records

        return Records(self.scope, self._relations)

    @cached_property
    def _undo(self) -> Undo:
        from .undo import Undo

        return Undo(self.scope)

    @cached_property
    def _transfer(self) -> Transfer:
        from .transfer import Transfer

        return Transfer(self.scope)

    @cached_property
    def _learning(self) -> Learning:
        from .learning import Learning

        return Learning(self.scope)

    @cached_property
    def _recalling(self) -> Recalling:
        from .recalling import Recalling

        return Recalling(self.scope)

    @cached_property
    def _ingesting(self) -> Ingesting:
        from .ingesting import Ingesting

        return Ingesting(self.scope)

    @cached_property
    def _capturing(self) -> Capturing:
        from .capturing import Capturing

        return Capturing(self.scope, self._ingesting, self._learning, self._relations)

    @cached_property
    def _triaging(self) -> Triaging:
        from .triaging import Triaging

        return Triaging(self.scope)

    @property
    def store(self) -> Backend:
        """The store this engine reads and writes (for diagnostics and benchmarks)."""
        return self.scope.store

    @property
    def space(self) -> str:
        """The space this engine reads and writes (the hard isolation unit)."""
        return self.scope.space

    @property
    def path(self) -> str:
        """Where the store lives: the SQLite file's path, or the given backend's ``path``."""
        return self.scope.path

    @property
    def skipped_rows(self) -> int:
        """How many malformed stored rows this engine's reads have skipped so far: such
        rows never stop the others from being read; ``status()`` lists them."""
        return self.scope.skipped()

    @property
    def trace_retention_days(self) -> float:
        """How long recall traces are kept before they are pruned (days)."""
        return self._recalling.trace_retention_days

    @trace_retention_days.setter
    def trace_retention_days(self, days: float) -> None:
        self._recalling.trace_retention_days = check_number(days, "trace_retention_days", 0, 36_500)

    def now(self) -> datetime:
        """The engine's clock. Nothing in Cairn reads the machine clock elsewhere."""
        return self.scope.now()

    # -- ids ---------------------------------------------------------------------------

    def resolve_id(self, ref: str, table: str = "memories") -> str:
        """The full id for ``ref`` (an id, or a unique prefix of 6+ characters) in this
        space; ``table`` is ``memories``, ``events`` or ``relations``. Raises
        :class:`~cairn.errors.NotFound` or :class:`~cairn.errors.AmbiguousId`."""
        return self.scope.resolve_id(ref, table)

    def get(self, ref: str) -> Memory:
        """The memory ``ref`` names, as stored (the bare record; :meth:`show` adds its
        read-time quality and relations)."""
        return self.scope.get(ref)

    # -- records -----------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        kind: Kind | str,
        origin: str = "",
        basis: Basis | str = Basis.USER_STATEMENT,
        method: Method | str = Method.MANUAL,
        source: str | None = None,
        at: datetime | str | None = None,
        certainty: Certainty | str | None = None,
        valid_from: datetime | str | None = None,
        valid_to: datetime | str | None = None,
        expected_resolution_at: datetime | str | None = None,
        aliases: Iterable[str] = (),
        pin: bool = False,
        actor: Actor | str = Actor.MANUAL,
        reason: str | None = None,
        relates: Iterable[tuple[Role | str, str]] | None = None,
        replaces_similar: bool = False,
        topics: Iterable[str] = (),
        entities: Iterable[str] = (),
    ) -> Remembered:
        """Store one claim (or one episode) with its evidence, as one event.

        Identical content in the same origin is not stored twice: the standing record is
        returned with ``deduplicated=True`` (episodes excepted). Secrets are redacted
        before anything is written. ``relates`` declares ``[(role, older_ref), ...]``
        relations from this record in the same event. The result's ``similar`` names
        current records of the same kind and origin the claim seems to replace;
        ``replaces_similar`` supersedes them when the write policy allows (else the claim
        is stored quarantined and ``withheld`` says why). ``topics``/``entities``
        must be canonical ids of the space's label vocabulary (:class:`~cairn.errors.UnknownLabel`)."""
        check_str(text, "text")
        check_str(origin, "origin")
        check_str(source, "source", optional=True)
        check_str(reason, "reason", optional=True)
        check_strings(aliases, "aliases")
        check_bool(pin, "pin")
        check_bool(replaces_similar, "replaces_similar")
        for field, value in (("at", at), ("valid_from", valid_from), ("valid_to", valid_to),
                             ("expected_resolution_at", expected_resolution_at)):
            check_time_arg(value, field)
        if relates is not None:
            relates = _pairs(relates)
        check_strings(topics, "topics")
        check_strings(entities, "entities")
        return self._records.remember(
            text, kind=kind, origin=origin, basis=basis, method=method, source=source, at=at, certainty=certainty,
            valid_from=valid_from, valid_to=valid_to, expected_resolution_at=expected_resolution_at, aliases=aliases,
            pin=pin, actor=actor, reason=reason, relates=relates, replaces_similar=replaces_similar,
            topics=topics, entities=entities,
        )

    def remember_many(
        self,
        claims: Iterable[str | Mapping[str, Any]],
        *,
        kind: Kind | str | None = None,
        origin: str = "",
        basis: Basis | str = Basis.USER_STATEMENT,
        method: Method | str = Method.MANUAL,
        actor: Actor | str = Actor.MANUAL,
        reason: str | None = None,
    ) -> RememberedMany:
        """Store many claims as one transaction and one event: the bulk form of
        :meth:`remember`, for loading a backlog (tens of thousands of records a second).

        Each claim is a text (stored with ``kind``, ``origin``, ``basis``, ``method``) or a
        mapping of :meth:`remember`'s arguments — ``text``, ``kind``, ``origin``, ``basis``,
        ``method``, ``source``, ``at``, ``certainty``, ``valid_from``, ``valid_to``,
        ``expected_resolution_at``, ``aliases``, ``pin``, ``topics``, ``entities`` — whose
        missing keys take the call's values. Every claim is validated and its secrets
        redacted before anything is written; a defect refuses the whole call with
        :class:`~cairn.errors.InvalidInput` naming the claim (``claim 3: kind``), and
        nothing is stored. Identical content in the same origin and kind is stored once
        (against the store and within the call). No look-alike search and no relations:
        use :meth:`remember` for a claim that may replace another."""
        check_str(origin, "origin")
        check_str(reason, "reason", optional=True)
        if isinstance(claims, (str, bytes, Mapping)) or not isinstance(claims, Iterable):
            raise InvalidInput("claims", f"{echo(claims)} is not a list of texts or mappings")
        prepared: builtins.list[dict[str, Any]] = []
        for number, claim in enumerate(claims, 1):
            prepared.append(_claim_args(number, claim, {"kind": kind, "origin": origin, "basis": basis, "method": method}))
        return self._records.remember_many(prepared, actor=actor, reason=reason)

    def quality(self, memory: Memory) -> Quality:
        """Read-time quality of one record: freshness, dormancy, priority, ranking weights."""
        if not isinstance(memory, Memory):
            raise InvalidInput("memory", f"{echo(memory)} is not a Memory")
        return self._records.quality(memory)

    def show(self, ref: str) -> Shown:
        """One record, its read-time quality and every relation touching it."""
        return self._records.show(ref)

    def list(
        self,
        *,
        status: Status | str | None = None,
        kind: Kind | str | None = None,
        origin: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> Page:
        """One page of this space's records, oldest first, optionally of one status, kind
        or origin. A page past the last is refused (:class:`~cairn.errors.InvalidInput`)."""
        check_int(page, "page")
        check_int(per_page, "per_page", 1, 1000)
        check_str(origin, "origin", optional=True)
        return self._records.list(status=status, kind=kind, origin=origin, page=page, per_page=per_page)

    def forget(self, ref: str, *, purge: bool = False, actor: Actor | str = Actor.MANUAL) -> Event:
        """Mark a record forgotten (history keeps it), or with ``purge`` erase its content
        from the record, the index and every event snapshot (not undoable)."""
        check_bool(purge, "purge")
        return self._records.forget(ref, purge=purge, actor=actor)

    def pin(self, ref: str) -> Event:
        """Pin a record: never dormant, protected from weaker replacement."""
        return self._records.pin(ref)

    def unpin(self, ref: str) -> Event:
        """Return a pinned record to the durable layer."""
        return self._records.unpin(ref)

    def history(self, ref: str | None = None, *, limit: int = 20) -> builtins.list[Event]:
        """Events, newest first: of the whole space, or those touching record ``ref``."""
        check_int(limit, "limit")
        return self._records.history(ref, limit=limit)

    def status(self) -> StatusDoc:
        """Integrity report: the database's schema version, counts, malformed rows."""
        return self._records.status()

    def undo(self, ref: str, *, actor: Actor = Actor.MANUAL) -> Event:
        """Append a compensating event restoring what event ``ref`` changed. Refused
        (:class:`~cairn.errors.UndoRefused`) when a record it touched changed since."""
        return self._undo.undo(ref, actor=actor)

    def export(self, out: IO[str]) -> Transferred:
        """Write this space's records, relations and events to ``out`` as JSONL."""
        if not callable(getattr(out, "write", None)):
            raise InvalidInput("out", f"{echo(out)} is not a writable text stream")
        return self._transfer.export(out)

    def import_(self, lines: Iterable[str]) -> Transferred:
        """Read a JSONL export into this space: all-or-nothing, idempotent (records already
        present are skipped), history restored verbatim. ``lines``: an iterable of JSONL
        lines (an open file), or the whole export as one string."""
        if isinstance(lines, str):
            lines = lines.splitlines()
        if isinstance(lines, (bytes, bytearray)) or not isinstance(lines, Iterable):
            raise InvalidInput("lines", f"{echo(lines)} is not JSONL text or an iterable of lines")
        return self._transfer.import_(_text_lines(lines))

    # -- evidence and feedback ---------------------------------------------------------

    def apply(self, batch: Batch | dict[str, Any] | str) -> Applied:
        """Apply one consolidation batch (a :class:`~cairn.learn.batch.Batch`, its wire
        dict or JSON text) as one event; the authority policy decides each replacement."""
        from ..learn.batch import Batch

        if not isinstance(batch, (Batch, dict, str)):
            raise InvalidInput("batch", f"{echo(batch)} is not a Batch, a dict or JSON text")
        return self._learning.apply(batch)

    def mentioned_by(self, source: object) -> builtins.list[Memory]:
        """The records a batch with this source (its wire dict) may replace (read-only)."""
        return self._learning.mentioned_by(source)

    def correct(self, ref: str, text: str, *, drop_aliases: bool = False) -> Corrected:
        """A literal manual correction of a record (strongest evidence; undoable). Its
        aliases are kept unless ``drop_aliases``."""
        check_str(text, "text")
        check_bool(drop_aliases, "drop_aliases")
        return self._learning.correct(ref, text, drop_aliases=drop_aliases)

    def feedback(
        self, ref: str, verdict: Verdict | str, source: str | None = None, *, at: datetime | str | None = None
    ) -> FeedbackResult:
        """An explicit verdict (useful, unhelpful, accurate, incorrect) with a replay-safe
        receipt keyed by source and memory; ``incorrect`` quarantines the claim."""
        check_str(source, "source", optional=True)
        check_time_arg(at, "at")
        return self._learning.feedback(ref, verdict, source, at=at)

    def parse_feedback_message(self, text: str) -> FeedbackMessage | None:
        """A verdict found in a short feedback message (``"that's wrong"``), or None."""
        check_str(text, "text")
        return self._learning.parse_feedback_message(text)

    # -- recall ------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        limit: int = PACK.limit,
        budget: int = PACK.budget,
        lane: str | None = None,
        include_dormant: bool = False,
        include_history: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        trace: bool = True,
        origin: str | None = None,
        prefer_origin: str | None = None,
        include_retired: bool = False,
        inject: bool = False,
    ) -> Recalled:
        """The few memories that matter for ``query``, packed in a bounded digest.

        Dormant records (old, not confirmed lately) are all ranked beside current ones
        with ``include_dormant``; without it they come back, labelled ``dormant``, when
        nothing current answers or when they answer as well as the current results (the
        note says so), and never with ``inject`` — what a host pushes into an agent's
        context unprompted.
        ``origin`` keeps only that origin's records; ``prefer_origin`` (a host passes its
        project) puts that origin's relevant records first without leaving others out.
        Retired records are left out unless ``include_retired``.
        Read-only but for its trace (``trace=False`` writes none)."""
        _recall_args(query, limit, budget, lane, as_of, known_at, include_dormant, include_history, trace,
                     include_retired, inject)
        return self._recalling.recall(
            query, limit=limit, budget=budget, lane=lane, include_dormant=include_dormant,
            include_history=include_history, as_of=as_of, known_at=known_at, trace=trace,
            origin=origin, prefer_origin=prefer_origin, include_retired=include_retired, inject=inject,
        )

    def search(
        self,
        query: str,
        *,
        limit: int = SEARCH_LIMIT,
        budget: int = SEARCH_BUDGET,
        lane: str | None = None,
        include_history: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        trace: bool = True,
        origin: str | None = None,
        prefer_origin: str | None = None,
    ) -> Recalled:
        """Explicit lookup: like recall, dormant records included, up to 10 results."""
        _recall_args(query, limit, budget, lane, as_of, known_at, include_history, trace)
        return self._recalling.search(
            query, limit=limit, budget=budget, lane=lane, include_history=include_history,
            as_of=as_of, known_at=known_at, trace=trace, origin=origin, prefer_origin=prefer_origin,
        )

    def explain(
        self,
        query: str,
        *,
        limit: int = PACK.limit,
        budget: int = PACK.budget,
        lane: str | None = None,
        include_dormant: bool = False,
        include_history: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        origin: str | None = None,
        prefer_origin: str | None = None,
        inject: bool = False,
    ) -> ExplainDoc:
        """Every stage's numbers for ``query`` and each candidate's reason, no memory
        bodies, at most 8 KB (of the recall :meth:`recall` would run, dormant fallback
        included). Writes nothing."""
        _recall_args(query, limit, budget, lane, as_of, known_at, include_dormant, include_history, inject)
        return self._recalling.explain(
            query, limit=limit, budget=budget, lane=lane, include_dormant=include_dormant,
            include_history=include_history, as_of=as_of, known_at=known_at,
            origin=origin, prefer_origin=prefer_origin, inject=inject,
        )

    def ingest(
        self,
        path_or_lines: Any,
        format: str = "jsonl",
        origin: str | None = None,
        *,
        sample: str | int | None = None,
        actor: Actor | str = Actor.MANUAL,
        progress: Progress | bool | None = None,
    ) -> Ingested:
        """Store a conversation's turns as verbatim episodes (``format`` jsonl or locomo).

        ``path_or_lines``: a file path, an iterable of JSONL lines, a list of turn dicts
        (``{"id", "speaker" or "role", "text", "time"}`` or the chat shape ``{"role",
        "content"}``: a missing id or time is generated, and the result's ``generated``
        names which), or a decoded LoCoMo conversation; re-ingesting skips turns already
        stored. Anything else is refused with :class:`~cairn.errors.InvalidInput`. ``progress``: a callback
        ``(done, total)``, ``False`` for none, ``None`` for a line on a terminal."""
        check_str(format, "format")
        check_str(origin, "origin", optional=True)
        if sample is not None and (isinstance(sample, bool) or not isinstance(sample, (str, int))):
            raise InvalidInput("sample", f"{echo(sample)} is not a sample id or an index")
        if isinstance(path_or_lines, (bytes, bytearray, int, float)) or path_or_lines is None:
            raise InvalidInput("path_or_lines", f"{echo(path_or_lines)} is not a path, lines or a conversation")
        if isinstance(path_or_lines, (builtins.list, tuple)):
            for item in path_or_lines:
                if not isinstance(item, (str, dict)):
                    raise InvalidInput("path_or_lines", f"{echo(item)} is neither a line of text nor a turn object")
        return self._ingesting.ingest(path_or_lines, format, origin, sample=sample, actor=actor, progress=progress)

    # -- corrections and time ----------------------------------------------------------

    def relate(
        self, from_ref: str, role: Role | str, to_ref: str, *, actor: Actor | str = Actor.MANUAL, reason: str | None = None
    ) -> Event:
        """Declare ``from_ref ROLE to_ref`` (newer → older: corrects, supersedes,
        contradicts, qualifies) as one event. Refused (:class:`~cairn.errors.RelationRefused`)
        on a self-reference, a cycle, a crossing of spaces, a purged end or a duplicate."""
        check_str(reason, "reason", optional=True)
        return self._relations.relate(from_ref, role, to_ref, actor=actor, reason=reason)

    def timeline(self, query: str, *, limit: int = TIMELINE_MAX) -> Timeline:
        """The successive states of one subject, oldest first, with their validity and the
        relations between them. Writes nothing."""
        check_str(query, "query")
        check_int(limit, "limit")
        return self._relations.timeline(query, limit=limit)

    # -- learning from transcripts and reinforcement -----------------------------------

    def learn(
        self,
        path: str | os.PathLike[str],
        *,
        format: str = "auto",
        extractor: str = "rules",
        origin: str | None = None,
        dry_run: bool = False,
        progress: Any = None,
        model_settings: dict[str, Any] | None = None,
        injected: Mapping[str, Sequence[str]] | None = None,
    ) -> Learned:
        """Learn from a transcript (claude-code, openai, jsonl or auto): the new turns as
        episodes, the user's explicit statements as one consolidation batch through the
        write policy. Re-running adds nothing; a grown file adds only its new turns.
        ``dry_run`` reads and extracts but writes nothing. ``model_settings`` (url, model,
        key_env, timeout) configure the ``model`` extractor. ``injected`` (a host's ledger:
        ``prompt_key(prompt)`` -> ids recalled for it) links the user's reactions to the
        memories an answer stood on (reinforcement events)."""
        return self._capturing.learn(path, format=format, extractor_name=extractor, origin=origin, dry_run=dry_run,
                                     progress=progress, model_settings=model_settings, injected=injected)

    def reinforce(
        self,
        ref: str,
        outcome: str,
        *,
        source: str | None = None,
        session: str | None = None,
        note: str | None = None,
        at: datetime | str | None = None,
        neutral: bool = False,
    ) -> ReinforceResult:
        """Record a reinforcement event on a record: explicit_reinforcement (+1.0),
        implicit_success (+0.2), explicit_correction (−1.0), or neutral_exposure (0; only
        with ``neutral=True``, once per session). Changes no confidence or ranking."""
        return self._capturing.reinforce(ref, outcome, source=source, session=session, note=note, at=at, neutral=neutral)

    def reinforcements(self, ref: str) -> builtins.list[Reinforcement]:
        """The reinforcement events recorded on a record, oldest first (undone ones left out)."""
        return self._capturing.reinforcements(ref)

    # -- aliases, confirmation, history with texts -------------------------------------

    def alias(self, ref: str, action: str, word: str) -> Event:
        """Add (``action="add"``) or remove (``"remove"``) one alias of a record, as one
        undoable event. An alias is a search term, not evidence: no clock moves."""
        return self._records.alias(ref, action, word)

    def confirm(self, ref: str, *, source: str | None = None) -> Confirmed:
        """Say a record still holds: its confirmation clock (``reinforced_at``) moves to
        now, so a dormant record is offered again. Writes no event and never moves the
        evidence date; one ``source`` confirms a record once; project states are refused
        (they go stale silently: remember the current state instead)."""
        return self._records.confirm(ref, source=source)

    def text_changes(self, ref: str, *, limit: int = 20) -> builtins.list[TextChange]:
        """The events that changed record ``ref``'s text (a correction keeps the id),
        oldest first, each with the text before and after. Writes nothing."""
        return self._records.text_changes(ref, limit=limit)

    # -- the host loop -----------------------------------------------------------------

    def triage(self, message: str, attachments: builtins.list[str] | tuple[str, ...] = ()) -> Triage:
        """RETRIEVE (with a retrieval intent), ASK (the one missing anchor) or SKIP for one
        user message, deterministically; SKIP too when no record of this space could be
        relevant. Reads term statistics only; writes nothing."""
        check_str(message, "message")
        check_strings(attachments, "attachments")
        return self._triaging.triage(message, attachments)

    # -- traces --------------------------------------------------------------------------

    def read_trace(self, trace_id: str) -> TraceDoc:
        """The stored trace of one recall (its full id, as ``recall`` returned it): query
        features, parameters, every candidate's numbers, reason and matched phrase. No
        memory bodies. Writes nothing; :class:`~cairn.errors.NotFound` when it was pruned."""
        from ..recall.traces import read_trace

        check_str(trace_id, "trace_id")
        with self.store.snapshot() as view:
            return read_trace(view, self.space, trace_id)

    # -- the semantic extra ------------------------------------------------------------

    def embed(self, *, limit: int | None = None, progress: EmbedProgress | bool | None = None) -> Embedded:
        """Back-fill the semantic lane's vectors of this space (needs the semantic extra):
        texts written before it was installed, or in a bulk write. Resumable; see
        :mod:`.embedding`. ``progress``: ``(done, total)`` callback, False, or None for a
        bar on a terminal."""
        from .embedding import Embedding

        return Embedding(self.scope).embed(limit=limit, progress=progress)

    # -- archive of raw sources --------------------------------------------------------

    def archive_add(self, path: str | os.PathLike[str], *, source_type: str | None = None,
                    source_id: str | None = None) -> Added:
        """Preserve a source byte for byte in the space's private raw store and catalog it
        (metadata only). The same bytes twice are one entry (``deduplicated``)."""
        return _archiving(self.scope).add(path, source_type=source_type, source_id=source_id)

    def archive_entries(self) -> builtins.list[Entry]:
        """The catalog of this space's raw store, tombstones included."""
        return _archiving(self.scope).entries()

    def archive_verify(self, ref: str | None = None) -> Verified:
        """Every check of the raw store (or of one entry); each failure named."""
        return _archiving(self.scope).verify(ref)

    def archive_show(self, ref: str, *, turns: str | None = None, around: str | None = None,
                     context: int = 0) -> tuple[Entry, Rehydrated | None]:
        """An entry, and with ``turns`` ("A..B") or ``around`` (an episode id; ``ref`` may
        then be ``"-"``) the smallest range of it, verified first, as untrusted evidence."""
        return _archiving(self.scope).show(ref, turns=turns, around_episode=around, context=context)

    def archive_remove(self, ref: str, *, actor: Actor = Actor.MANUAL) -> Removed:
        """Delete a preserved copy on an explicit request; the catalog keeps a tombstone and
        the event log the source's hash."""
        return _archiving(self.scope).remove(ref, actor=actor)

    def ingest_archived(self, path: str | os.PathLike[str], format: str = "jsonl", origin: str | None = None,
                        **options: Any) -> tuple[Added, Ingested]:
        """Archive a conversation file, then ingest it; its episodes link to the entry."""
        return _archiving(self.scope).ingest(self._ingesting, path, format, origin, **options)

    def learn_archived(self, path: str | os.PathLike[str], *, format: str = "auto", extractor: str = "rules",
                       origin: str | None = None, progress: Any = None,
                       model_settings: dict[str, Any] | None = None) -> tuple[Added, Learned]:
        """Archive a transcript, then learn from it; its episodes link to the entry."""
        return _archiving(self.scope).learn(self._capturing, path, format, extractor_name=extractor, origin=origin,
                                           progress=progress, model_settings=model_settings)

    # -- labels ------------------------------------------------------------------------

    def labels(self) -> Vocabulary:
        """The space's topic/entity vocabulary (empty until one is imported)."""
        return _labelling(self.scope).vocabulary()

    def labels_import(self, text: str) -> Imported:
        """Replace the space's vocabulary with a JSON one; reports stored labels it lacks."""
        return _labelling(self.scope).import_(text)

    def labels_check(self) -> builtins.list[LabelProblem]:
        """Stored labels (records of any status) that are not in the vocabulary. Read-only."""
        return _labelling(self.scope).check()

    def label_hint(self, text: str, field: str = "topics") -> Hint:
        """How a query hint is understood; an unknown one carries a warning."""
        return _labelling(self.scope).hint(text, field)

    def labels_recognise(self, text: str) -> Recognised:
        """The vocabulary's labels whose id or alias occurs in ``text``."""
        return _labelling(self.scope).recognise(text)

    # -- trust: confidence, use reports, maintenance, retention -------------------------

    def confidence(self, ref: str) -> Confidence:
        """How far to trust one record: a level (low, medium, high) and its named grounds.
        Never a ranking input."""
        from .trust import Trust

        return Trust(self.scope).confidence(self.scope.get(ref))

    def report_use(self, trace: str, verdict: str, refs: Iterable[str]) -> Reported:
        """Report what was done with a recall's results (used, unused, wrong), joined to its
        trace with a failure class per record. Never changes ranking. Refused for a trace
        that is unknown or expired, or a record the trace did not return."""
        check_str(trace, "trace")
        check_str(verdict, "verdict")
        check_strings(refs, "refs")
        return _reports(self.scope).report(trace, verdict, builtins.list(refs))

    def report_summary(self, *, since: datetime | str | None = None) -> ReportSummaryDoc:
        """Use reports aggregated by lane, kind, age and evidence basis (ids and counts only)."""
        check_time_arg(since, "since")
        return _reports(self.scope).summary(since)

    def maintenance_plan(self) -> MaintenancePlanDoc:
        """Maintenance recommendations for every active claim, as a reviewable plan (reads only)."""
        return _maintaining(self.scope).maintenance_plan()

    def apply_maintenance(self, plan: dict[str, Any] | str, *, auto: bool = False) -> PlanApplied:
        """Apply a maintenance plan as one undoable event; ``auto`` applies only the
        low-risk ops (confidence decay, stability increases)."""
        check_bool(auto, "auto")
        return _maintaining(self.scope).apply_maintenance(plan, auto=auto)

    def retention_plan(self, policies: str) -> RetentionPlanDoc:
        """What each retention policy (TOML text) matches in this space, and why (reads only)."""
        check_str(policies, "policies")
        return _maintaining(self.scope).retention_plan(policies)

    def apply_retention(self, plan: dict[str, Any] | str) -> PlanApplied:
        """Retire the records a retention plan lists, as one undoable event (never deletes)."""
        return _maintaining(self.scope).apply_retention(plan)

# -- argument checks shared by several methods -------------------------------------------


def _recall_args(query: object, limit: object, budget: object, lane: object, as_of: object, known_at: object,
                 *flags: object) -> None:
    check_str(query, "query")
    check_int(limit, "limit", 1, 1000)
    check_int(budget, "budget", 1, COUNT_MAX)
    check_str(lane, "lane", optional=True)  # None: the default lane (hybrid with the semantic extra)
    check_time_arg(as_of, "as_of")
    check_time_arg(known_at, "known_at")
    for flag in flags:
        check_bool(flag, "include_dormant, include_history, include_retired, inject and trace")


_CLAIM_KEYS = frozenset((
    "text", "kind", "origin", "basis", "method", "source", "at", "certainty", "valid_from", "valid_to",
    "expected_resolution_at", "aliases", "pin", "topics", "entities"))


def _claim_args(number: int, claim: object, defaults: dict[str, Any]) -> dict[str, Any]:
    """One claim of ``remember_many`` as :meth:`Records.new_claim`'s keyword arguments,
    checked as :meth:`Cairn.remember` checks its own (InvalidInput naming the claim)."""
    where = f"claim {number}"
    if isinstance(claim, str):
        claim = {"text": claim}
    if not isinstance(claim, Mapping):
        raise InvalidInput(where, f"{echo(claim)} is not a text or a mapping")
    unknown = sorted(str(k) for k in claim if k not in _CLAIM_KEYS)
    if unknown:
        raise InvalidInput(where, f"unknown field {unknown[0]!r} (one of: {', '.join(sorted(_CLAIM_KEYS))})")
    args = {**defaults, **claim}
    if args["kind"] is None:
        raise InvalidInput(f"{where}: kind", "missing (give it in the claim or as kind=)")
    try:
        check_str(args.get("text"), "text")
        for field in ("origin", "source"):
            check_str(args.get(field), field, optional=True)
        for field in ("aliases", "topics", "entities"):
            check_strings(args.get(field), field)
        check_bool(args.get("pin", False), "pin")
        for field in ("at", "valid_from", "valid_to", "expected_resolution_at"):
            check_time_arg(args.get(field), field)
    except InvalidInput as err:
        raise InvalidInput(f"{where}: {err.field}", err.reason) from None
    return args


def _pairs(relates: object) -> builtins.list[tuple[Role | str, str]]:
    """``relates`` as a list of (role, record) pairs, or InvalidInput."""
    if isinstance(relates, (str, bytes)) or not isinstance(relates, Iterable):
        raise InvalidInput("relates", f"{echo(relates)} is not a list of (role, id) pairs")
    pairs = builtins.list(relates)
    for pair in pairs:
        if not isinstance(pair, (tuple, builtins.list)) or len(pair) != 2:
            raise InvalidInput("relates", f"{echo(pair)} is not a (role, id) pair")
        check_str(pair[1], "relates id")
    return [(role, ref) for role, ref in pairs]


def _text_lines(lines: Iterable[object]) -> Iterable[str]:
    for line in lines:
        if not isinstance(line, str):
            raise InvalidInput("lines", f"{echo(line)} is not a line of text")
        yield line


# -- parts used by a few methods, built per call (imported on first use) ----------------


def _archiving(scope: Scope) -> Archiving:
    from .archiving import Archiving

    return Archiving(scope)


def _labelling(scope: Scope) -> Labelling:
    from .labelling import Labelling

    return Labelling(scope)


def _reports(scope: Scope) -> Reports:
    from .reports import Reports

    return Reports(scope)


def _maintaining(scope: Scope) -> Maintaining:
    from .maintaining import Maintaining

    return Maintaining(scope)
