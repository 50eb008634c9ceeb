"""The deterministic extractor (``rules``, the default): explicit, durable statements a
user makes about themselves and their work, in English and Chinese. No model.

It reads *user* turns only (the caller passes them; an assistant's words are never the
user's testimony) and proposes, per sentence, at most one claim:

* **preference** — "I prefer / like / hate / always / never …", "my favourite …",
  "from now on …", "going forward …", a sentence opening with "Always"/"Never";
  我喜欢 / 我更喜欢 / 我偏好 / 我习惯 / 我不喜欢 / 以后… / 从现在开始… / 总是… / 永远不要…
* **decision** — "we decided / agreed / chose …", "let's go with …", "we're going with …",
  "we're switching to …", "we will use …", "Decision: …", "the plan is to …";
  我们决定 / 我们选择了 / 团队同意 / 我们打算 / 就用…
* **fact** — what the user asserts about themselves and their work ("my …", "our …",
  "I work / live / use …", "I'm from …", "we use …", "we're using …", "the frontend is
  written in …"; 我在 / 我是 / 我叫 / 我用 …, 我的…是…, 我们的 …, 我们用 …), and whatever
  follows an explicit request to remember ("remember that …", "note that …", "don't forget
  that …", 记住…, 记一下…). "Remember to …" is kept (as a preference) only when it is a
  standing instruction ("remember to always …"), not today's errand.
* **correction** — "actually …", "no, …", "correction: …", "sorry, I meant …",
  "that's wrong — …", 不对，…, 更正一下…, 其实…: the corrected statement is proposed, with
  ``replaces`` naming the one candidate it clearly corrects (see :func:`correction_target`),
  when there is exactly one.

Negative controls (no claim): questions; hypotheticals ("if I preferred …", "suppose",
如果, 假如); hedges ("maybe", "might", 也许); one-off instructions ("for this task only",
"just for now", 这次); reported speech ("my colleague said she prefers …", "they told
me …", 同事说); quoted or pasted text (code blocks, "> " lines and quotations are removed
before anything is read); reactions, pleasantries and bare pointers ("I like it", "No,
thanks", "Never mind", "No, not that file", 我喜欢这个): a statement must carry at least one
word of substance beyond its cue words, two when it points with "it/this/that", and a
correction must assert something (a verb of state, or its subject first: "No, run it
again" is an order); and a turn asking not to be remembered ("don't remember
this", "off the record", 别记, 不要记住), which yields nothing at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...model import Kind
from ...text import content_terms
from ..batch import Batch, ClaimSpec, SourceSpec
from . import Candidate, Proposal

MIN_CORRECTION_OVERLAP = 0.34  # share of a candidate's terms the correcting turn must repeat


@dataclass(frozen=True, slots=True)
class Found:
    """One statement found in a turn: its kind, its text, whether it corrects something."""

    kind: Kind
    content: str
    correction: bool = False


# -- cleaning ---------------------------------------------------------------------------

_FENCE = re.compile(r"```.*?(```|$)", re.S)
_QUOTE_LINE = re.compile(r"^\s*>.*$", re.M)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|‘[^’\n]*’|(?<![A-Za-z])'[^'\n]{3,}'(?![A-Za-z])")
_DO_NOT_KEEP = re.compile(
    r"\b(don'?t|do not|please don'?t|never)\s+(remember|save|store|memori[sz]e)\b|\boff the record\b|"
    r"别记|不要记|不用记|别存|不要存", re.I)


def clean(text: str) -> str:
    """The user's own words: pasted code, quoted lines and quotations removed."""
    text = _FENCE.sub(" ", text)
    text = _QUOTE_LINE.sub(" ", text)
    return _QUOTED.sub(" ", text)


_SENTENCE = re.compile(r"[^.!?。！？\n;；]+[.!?。！？;；]*|[.!?。！？]+")
_AND_SUBJECT = re.compile(r",\s*and\s+(?=(?:I|we|my|our)\b)", re.I)
_ZH_ALSO = re.compile(r"[，,]\s*(?:另外|还有)[，,]?")


def sentences(text: str) -> list[str]:
    """Sentences of a turn; ", and I …" and 另外 start a new one (two statements)."""
    text = _ZH_ALSO.sub("。", _AND_SUBJECT.sub(". ", text))
    # A dot inside a version or host name ("3.12", "test-01.internal") does not end a sentence.
    protected = re.sub(r"(?<=\w)\.(?=\w)", "\x00", text)
    found = [s.replace("\x00", ".").strip() for s in _SENTENCE.findall(protected)]
    return [s for s in found if s and any(c.isalnum() for c in s)]


# -- what is not a statement --------------------------------------------------------------

_QUESTION_START = re.compile(
    r"^(do|does|did|what|which|who|whom|whose|why|how|when|where|should|shall|can|could|would|will|"
    r"is|are|was|were|am|have|has|i wonder|wonder)\b", re.I)
_ZH_QUESTION = re.compile(r"吗|呢|什么|哪个|哪些|哪里|为什么|怎么|是否|还是.*[？?]")
_HYPOTHETICAL = re.compile(
    r"^(if|suppose|supposing|imagine|what if|hypothetically|assuming|say we|in case)\b|如果|假如|假设|要是|万一", re.I)
_HEDGE = re.compile(r"\b(maybe|perhaps|might|not sure|i guess|probably)\b|也许|可能|或许|不确定|说不定", re.I)
_TEMPORARY = re.compile(r"\b(for this task|just for now|for now|this time|for today|temporarily)\b|这次|暂时|今天先|先跳过", re.I)
_REPORTED = re.compile(
    r"^(my|our|the|a|his|her|their)?\s*(colleague|coworker|co-worker|boss|manager|friend|client|customer|user|team lead|"
    r"wife|husband|partner)s?\s+(said|says|told|thinks|believes|decided|prefers|likes|wants)\b|"
    r"^(he|she|they)\s+(said|says|told|thinks|decided|prefers|likes|wants|always|never)\b|"
    r"^(according to|the (ticket|docs?|readme|issue|email|spec) (says|said|quotes?|states?))\b|"
    r"(同事|朋友|老板|经理|客户|他们|她们|他|她)(说|认为|觉得|决定|喜欢|告诉)", re.I)


# Someone named ("Bob decided …"): case-sensitive, so "Please always …" is not a name.
_NAMED = re.compile(r"^(?!(?:We|I|Let|Please|The|Our|My)\b)[A-Z][a-z]+\s+(?:said|says|told|thinks|decided|prefers|likes|wants)\b")


def is_statement(sentence: str) -> bool:
    """False for a question, hypothetical, hedge, one-off instruction or reported speech."""
    s = sentence.strip()
    if s.endswith(("?", "？")) or _ZH_QUESTION.search(s):
        return False
    if _QUESTION_START.match(s) and not re.match(r"^(is|are)\b", s, re.I):
        return False
    return not (_HYPOTHETICAL.search(s) or _HEDGE.search(s) or _TEMPORARY.search(s) or _REPORTED.search(s)
                or _NAMED.match(s))


# -- patterns ----------------------------------------------------------------------------

_LEAD = r"^(?:ok(?:ay)?|thanks!?|great|also|oh|and|by the way|btw|oops|wait|hmm+|ah|sorry)[,.!]?\s+"
_REMEMBER = re.compile(
    r"^(?:please\s+)?(?:remember|note|keep in mind|for the record|fyi|don'?t forget|do not forget)(?:\s+that)?\s*[:,—-]?\s*(.+)$",
    re.I)
_REMEMBER_TO = re.compile(r"^to\s+(.+)$", re.I)  # "remember to …": an instruction, not a fact
_DURABLE = re.compile(r"\b(?:always|never|every|each time|whenever|any time)\b", re.I)
_ZH_REMEMBER = re.compile(r"^(?:请)?(?:记住|记一下|记得|记下)[，,：:\s]*(.+)$")
_CORRECTION = re.compile(
    r"^(?:actually|no|nope|correction|sorry,?\s+i meant|i meant|that'?s wrong|that is wrong|not quite|wrong)\b"
    r"\s*[,:—–-]*\s*(?:wait\s*[,:—–-]*\s*)?(?:it'?s\s+actually\s+)?(.+)$", re.I)
_ZH_CORRECTION = re.compile(r"^(?:不对|不是的|错了|更正一下|更正|其实)[，,：:\s]*(.+)$")
_NOT_TAIL = re.compile(r"[,，]?\s*(?:and\s+)?(?:not|rather than|instead of)\s+[^,，]+$|[，,]\s*不是.+$", re.I)
_FROM_NOW = re.compile(r"^(?:please\s+)?(?:from now on|going forward|from here on|in future|in the future)[,:]?\s*(.+)$", re.I)
_ZH_FROM_NOW = re.compile(r"^(?:以后|今后|从现在开始|从今以后)[，,：:\s]*(.+)$")
_PREFERENCE = re.compile(
    r"^(?:please\s+)?(always|never)\b|"
    r"\bi\s+(?:really\s+|usually\s+|strongly\s+|much\s+)?(prefer|like|love|hate|dislike|don'?t like|do not like|always|never)\b|"
    r"\bi'?d rather\b|\bi would rather\b|\bmy (preferred|favou?rite)\b", re.I)
_ZH_PREFERENCE = re.compile(
    r"^(?:我|其实我)(?:更|很|比较|一直|还是)?(?:喜欢|偏好|习惯|讨厌|不喜欢|爱用|一直用)|"
    r"^(?:总是|永远不要|永远别|一定要|千万别|务必)")
_DECISION = re.compile(
    r"^(?:we|i|the team|team)(?:'ve|\s+have|\s+has)?\s+(?:decided|agreed|chose|picked|settled on)\b|"
    r"^(?:we|i)(?:'re| are)\s+going with\b|^let'?s go with\b|^decision:\s*|^the plan is to\b|"
    r"^we(?:'re| are| will be)\s+(?:switching|moving|migrating)\s+to\b|^we(?:'ll| will)\s+(?:use|adopt|go with)\b", re.I)
_DECISION_LEAD = re.compile(r"^(?:let'?s\s+(?=go with)|decision:\s*|the plan is to\s+|we agreed that\s+)", re.I)
_ZH_DECISION = re.compile(r"^(?:我们|团队|我们团队)(?:已经)?(?:决定|选择了|选定|同意|打算|准备)|^就用")
_FACT = re.compile(
    r"^(?:my|our)\s+\w[\w'-]*(?:\s+\w[\w'-]*){0,3}\s+(?:is|are|was|uses|use|runs|run|works|work|lives|live|changes|"
    r"rotates|belongs|has|have|costs|starts|takes|take|ends|expires|resets|meets|meet|ships|holds|contains|"
    r"includes|lasts|opens|closes|sits)\b|"
    r"^i\s+(?:work|live|maintain|own|lead|run|manage|use)\b|"
    r"^i(?:'m| am)\s+(?:a|an|allergic|based|the|from)\b|"
    r"^my name is\b|^we\s+(?:use|run|deploy|host)\b|^we(?:'re| are)\s+using\b|^our project uses\b|"
    r"^the\s+\w+(?:\s+\w+)?\s+(?:is|are)\s+(?:written|hosted|built|deployed|running|run|stored)\b", re.I)
_ZH_FACT = re.compile(r"^我(?:在|对|是|住在|负责|用|叫)|^我的.{1,12}是|^我们的|^我们(?:团队|公司)?用|^我们团队")
_TRAILING = re.compile(r"[\s.!。！;；,，:：]+$")

# What a statement must carry beyond its cue words to be worth keeping. A reaction ("I like
# it", "I hate this bug"), a pleasantry ("No, thanks", "Never mind") or a bare pointer
# ("No, not that file") states nothing that will still mean something next week.
_CUE_TERMS = frozenset(content_terms(
    "prefer like love hate dislike always never decided agreed chose remember note rather favourite favorite use"))
_POINTER = re.compile(r"\b(?:it|this|that|these|those|them|you|him|her)\b(?!\s+(?:we|you|the|our|my|all|every)\b)", re.I)
_ZH_POINTER = re.compile(r"(?:喜欢|讨厌|爱)(?:这|那|它|你)[个样些]?$")
_PLEASANTRY = re.compile(r"^(?:always|never)\s+(?:mind|happy|glad|fun|a pleasure|again|ever)\b", re.I)
# A correction asserts something: a copula or a verb of state, in words of substance.
_SUBJECT_FIRST = re.compile(r"^(?:the|my|our|your|its|it|we|i|[A-Z0-9]|[\u4e00-\u9fff])")
_ZH_ORDER = re.compile(r"^(?:再|请|帮|给|把|先|别|不要|重新)")
_ASSERTS = re.compile(r"\b(?:is|are|was|were|it'?s|uses|runs|lives|sits|belongs|means|should be|has)\b"
                      r"|是|在|用|叫", re.I)  # no bare "run", "use", "have": those open orders too


def substantive(content: str, *, correction: bool = False) -> bool:
    """Whether a found statement says something durable (see the comment above)."""
    text = _tidy(content)
    if _PLEASANTRY.match(text) or _ZH_POINTER.search(text):
        return False
    terms = set(content_terms(text)) - _CUE_TERMS
    cjk = any("\u4e00" <= c <= "\u9fff" for c in text)
    plain = correction and classify(text) is None  # "No, it's X": only the assertion itself to go on
    needed = 2 if (_POINTER.search(text) or plain) and not cjk else 1
    if len(terms) < needed:
        return False
    if not correction:
        return True
    if _ZH_ORDER.match(text):
        return False
    if _ASSERTS.search(text) or classify(text) is not None:
        return True
    # A correction without a verb of state still asserts when it names its subject first
    # ("the QA environment resets every weekend"); one opening with a verb is an order
    # ("run the full suite again"), and says nothing to remember.
    return len(terms) >= 3 and bool(_SUBJECT_FIRST.match(text)) and not _ZH_ORDER.match(text)


def _tidy(text: str) -> str:
    return _TRAILING.sub("", text.strip()).strip()


def classify(sentence: str) -> Kind | None:
    """The kind of a plain statement, or None when it states nothing durable."""
    s = sentence.strip()
    if _DECISION.search(s) or _ZH_DECISION.search(s):
        return Kind.DECISION
    if _PREFERENCE.search(s) or _ZH_PREFERENCE.search(s):
        return Kind.PREFERENCE
    if _FACT.search(s) or _ZH_FACT.search(s):
        return Kind.FACT
    return None


def _content(kind: Kind, sentence: str) -> str:
    text = sentence
    if kind is Kind.DECISION:
        text = _DECISION_LEAD.sub("", text)
    text = re.sub(r"^please\s+", "", text, flags=re.I)
    return _tidy(text)


def read_sentence(sentence: str) -> Found | None:
    """The statement one sentence makes, or None."""
    s = re.sub(_LEAD, "", sentence.strip(), flags=re.I)
    if not is_statement(s):
        return None
    for pattern in (_REMEMBER, _ZH_REMEMBER):
        m = pattern.match(s)
        if m:
            rest = m.group(1)
            to = _REMEMBER_TO.match(rest)
            if to:
                # "Remember to close the ticket" is today's errand; "remember to always run
                # black" is a standing instruction.
                if not _DURABLE.search(to.group(1)):
                    return None
                return Found(Kind.PREFERENCE, _content(Kind.PREFERENCE, to.group(1)))
            kind = classify(rest) or Kind.FACT
            return Found(kind, _content(kind, rest))
    for pattern in (_CORRECTION, _ZH_CORRECTION):
        m = pattern.match(s)
        if m:
            rest = _NOT_TAIL.sub("", m.group(1)).strip() or m.group(1)
            if not substantive(rest, correction=True):
                return None
            kind = classify(rest) or Kind.FACT
            return Found(kind, _content(kind, rest), correction=True)
    for pattern in (_FROM_NOW, _ZH_FROM_NOW):
        m = pattern.match(s)
        if m and is_statement(m.group(1)):
            return Found(Kind.PREFERENCE, _content(Kind.PREFERENCE, m.group(1)))
    plain = classify(s)
    return Found(plain, _content(plain, s)) if plain else None


def read_turn(text: str) -> list[Found]:
    """The statements of one user turn, in order (none when it asks not to be kept)."""
    if _DO_NOT_KEEP.search(text):
        return []
    found = []
    for sentence in sentences(clean(text)):
        statement = read_sentence(sentence)
        if statement and len(statement.content) >= 3 and substantive(statement.content):
            found.append(statement)
    return found


def correction_target(turn: str, kind: Kind | None, candidates: Sequence[Candidate]) -> str | None:
    """The one candidate of ``kind`` (any kind when None) that the correcting turn clearly
    names: the best share of its terms repeated by the turn (at least
    :data:`MIN_CORRECTION_OVERLAP`), strictly better than the runner-up. Ambiguity proposes
    nothing: a wrong ``replaces`` would overwrite a record the user did not mean."""
    said = set(content_terms(turn))
    scored = []
    for candidate in candidates:
        if kind is not None and candidate.kind is not kind:
            continue
        own = set(content_terms(candidate.content))
        if own:
            scored.append((len(own & said) / len(own), candidate.ref))
    scored.sort(reverse=True)
    if not scored or scored[0][0] < MIN_CORRECTION_OVERLAP:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


class RulesExtractor:
    """The default extractor (see the module docstring)."""

    name = "rules"
    method = "local"  # the evidence method of its claims: deterministic rules run here

    def extract(self, source: SourceSpec) -> Batch:
        """Claims of ``source.text`` read as one user turn, without candidates."""
        return self.extract_turns(source, [source.text], ()).batch

    def extract_turns(self, source: SourceSpec, turns: Sequence[str], candidates: Sequence[Candidate]) -> Proposal:
        """Claims of the user ``turns``; a correction may name a candidate, or ``#N`` for a
        claim proposed earlier from the same source."""
        claims: list[ClaimSpec] = []
        for turn in turns:
            for found in read_turn(turn):
                replaces = None
                if found.correction:
                    earlier = [Candidate(f"#{c.index}", c.kind, c.content) for c in claims]
                    # The latest statement is what a correction most likely corrects: earlier
                    # claims of this source first, then the records already held.
                    replaces = correction_target(turn, found.kind, earlier) or correction_target(
                        turn, found.kind, candidates)
                claims.append(ClaimSpec(len(claims), found.kind, found.content, replaces, ()))
        return Proposal(Batch(source, tuple(claims)))
