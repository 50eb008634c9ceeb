"""The rules behind :func:`cairn.recall.triage.triage` (documented there): history cues,
definite references, names and identifiers, time cues, pasted output, Chinese topics.

Kept apart so that importing the result types costs nothing: these patterns compile on
import, and only a triage needs them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from ..text import MONTH_WORDS, STOPWORDS, tokenize
from .triage import Decision, Triage

MAX_MESSAGE_CHARS = 20_000  # a host may pass a whole prompt; read at most this much of it

# Messages that carry no request of their own: acknowledgements, continuations, greetings.
_ACK = frozenset(
    """
    ok okay k kk sure yes yep yeah yup no nope nah fine great good nice cool perfect thanks thank
    thx ty cheers done continue go proceed next more again right correct agreed lgtm sgtm
    hi hello hey morning bye wow awesome excellent alright alrighty understood got it
    please do keep going carry on on you sounds looks works this that is it go ahead
    好 好的 好吧 行 可以 继续 谢谢 谢了 多谢 嗯 嗯嗯 对 是的 没问题 收到 明白 了解 知道了 不错 很好 完美 下一步
    """.split()
)

# Phrases saying the answer depends on earlier shared context. Each maps to the kind of
# anchor that would make it answerable, should none be present.
_HISTORY_CUES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), missing)
    for pattern, missing in (
        (r"\blast time\b|\bthe other day\b|\bback then\b|\bback when\b", "event"),
        (r"\blike (?:we|you|i) did\b|\bas (?:we|you|i) did\b|\bthe (?:same )?way (?:we|you|i) did\b", "artifact"),
        (r"\b(?:the|our|my) usual\b|\bas usual\b|\bsame as (?:always|before|last)\b", "topic"),
        (r"\bfrom before\b|\bfrom earlier\b|\bfrom last\b|\bearlier\b|\bpreviously\b|\bbefore\b", "artifact"),
        (r"\b(?:we|you|i) (?:decided|agreed|discussed|talked about|chose|picked|settled on|went with|said|mentioned|"
         r"told you|planned|promised|set up|used to)\b", "topic"),
        (r"\bdid (?:we|you|i)\b|\bhave (?:we|you|i) (?:ever|already)\b|\bwere (?:we|you) going\b", "topic"),
        (r"\b(?:do|can) you remember\b|\bremember (?:when|what|how|which|who|where|that|the)\b|\bremind me\b|"
         r"\brecall\b", "topic"),
        (r"\bthat (?:bug|issue|error|problem|thing|one|idea|plan|file|script|trick|fix|approach|meeting|call|"
         r"conversation|discussion|place|book|movie|song|restaurant|guy|person|project|function|query|command|"
         r"config|setting|ticket|pr|branch|article|recipe|trip)\b", "artifact"),
        (r"\bagain\b|\banymore\b|\bstill\b", "topic"),
        (r"上次|上回|之前|以前|先前|早先|还记得|记得吗|记不记得|老样子|照旧|跟以前一样|像上次|那次|那个|我们(?:决定|讨论|说过|聊过|用过|选了|约好)|"
         r"你(?:说过|提过|提到过|建议过)|我(?:说过|提过|告诉过你)", "topic"),
    )
)

# A question about the user's own world: answered from memory, not general knowledge.
_PERSONAL = re.compile(
    r"\b(?:my|our|we|we're|we've|us|i|i'm|i've|mine|ours)\b|我的|我们|咱们|我家|我",
    re.IGNORECASE,
)
# ... unless the first person is only how the request is phrased ("can you help me", "I want you to").
_PHRASING = re.compile(
    r"\b(?:can|could|would|will) you (?:please )?(?:help|show|tell|explain|give|write|make)(?: me| us)?\b|"
    r"\bi (?:want|need|would like|'d like) (?:you )?to\b|\bi (?:wonder|think|guess|mean)\b|\bhelp me\b|"
    r"\bshow me\b|\btell me\b|\bgive me\b|\blet me\b|\blet's\b|\bfor me\b|\bi'm (?:curious|wondering)\b|"
    r"\bdo i\b(?= (?:need|have to|use))|\bhow (?:do|can|should) i\b|\bhow (?:do|can|should) we\b|请|帮我|给我|告诉我",
    re.IGNORECASE,
)

# A pasted stack trace, log or code: lines that read like machine output.
_MACHINE_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \".+\", line \d+|at [\w.$<>]+\(.*\)|"
    r"\w+(?:\.\w+)*(?:Error|Exception|Warning)\b.*|\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[\w+\]|"
    r"(?:ERROR|WARN|WARNING|INFO|DEBUG|FATAL)\b|[#$>] |\$ |[{}\[\]();]+$|(?:def|class|import|from|return|if|for|"
    r"const|let|var|function|public|private)\b|    \S)",
)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)

# "remember that ...", "from now on ...": something to store (capture handles it), not to look up.
_TO_REMEMBER = re.compile(
    r"^\s*(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget)(?:\s+that)?\b"
    r"(?!\s+(?:when|what|how|which|who|where|the time|if))|"
    r"^\s*from now on\b|^\s*(?:请)?记住|^\s*以后",
    re.IGNORECASE,
)
# "the payments service", "this repo": a definite reference to something of the user's world
# (not "the capital of ...", which names a thing by what it belongs to).
_DEFINITE = re.compile(r"\b(?:the|this|our|my)\s+", re.IGNORECASE)

_EMOJI_ONLY = re.compile(r"^[\W_]*$", re.UNICODE)

_TIME_CUES = re.compile(
    r"\b(?:yesterday|today|tonight|last (?:week|month|year|night|spring|summer|autumn|fall|winter|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|sprint|quarter|release)|this (?:morning|week|month|year)|"
    r"(?:a|two|three|few|couple of) (?:days|weeks|months|years) ago|in (?:19|20)\d\d|"
    r"(?:19|20)\d\d(?:-\d\d(?:-\d\d)?)?|q[1-4])\b|昨天|前天|上周|上星期|上个月|去年|今年|前年|\d+月|\d+号|\d+日|星期[一二三四五六日天]",
    re.IGNORECASE,
)

# Words that only refer or request: they never make an anchor on their own.
_GENERIC = frozenset(
    """
    last time before earlier previous previously again usual way same thing things stuff one ones
    like did do does done doing make made use used using get got set setup need needs want wanted
    know knew think thought tell told say said says remember recall remind mention mentioned talk
    talked discuss discussed decide decided agree agreed pick picked choose chose go went help
    show explain give write fix run work working try tried look see find found check please could
    would should can will may might must shall still anymore ever already just also really actually
    bug issue error problem idea plan approach trick fix place time day week month year
    what which who whom whose when where why how whats hows wheres whos
    yes no ok okay thanks thank sure kind sort bit lot lots much many some any every
    new old good bad best better right wrong little big first next other another back happen happened
    happening broken break breaks broke fixed working again anymore going gone coming come came
    add refactor implement create update remove delete rename move change modify improve clean cleanup
    uses makes making gets getting needs wants tells says talks decides deciding looks looking finds finding
    checks checking tries trying shows showing helps helping works fixes fixing runs open opened suggest suggested
    mean meant meaning happens wrote write writing ask asked gave give given
    上次 上回 之前 以前 那个 那次 这个 怎么 什么 哪个 哪里 时候 为什么 我们 你们 记得 还记 问题 东西 方法 样子 老样 照旧
    """.split()
)

_NAME_RE = re.compile(r"(?<![\w'’])([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
_IDENT_RE = re.compile(
    r"(?<![\w])(?:[A-Za-z]+[A-Z_][\w]*|[a-z0-9]+(?:-[a-z0-9]+)+|[\w-]+\.[A-Za-z]\w{0,5}|[\w.-]*/[\w./-]+|[A-Z]{2,}\d*|v?\d+(?:\.\d+)+|#\d+|--?[a-z][\w-]+)(?![\w])"
)
_QUOTED_RE = re.compile(r"\"([^\"\n]{2,120})\"|(?<![\w])'([^'\n]{3,80})'(?![\w])|"
                        r"“([^”\n]{2,120})”|「([^」\n]{1,60})」|『([^』\n]{1,60})』|`([^`\n]{2,80})`")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")

# Sentence-initial capitals that are not names.
_CAPITAL_STOP = frozenset(
    """
    a an the i i'm i've i'd we we're our my you your it its this that these those what which who when where why how
    can could would should will do does did is are was were have has had please let lets let's ok okay yes no hi hey
    hello thanks so and but or if then also just now here there set add make write fix run use update remove create
    delete show tell give explain find check help move change rename refactor implement build deploy start stop try
    look open close keep put get go continue any some all remember recall remind same like as again still sure great
    good nice cool perfect done right wait actually hmm well oh okay alright sorry
    """.split()
)


def decide(
    message: str,
    attachments: Sequence[str] = (),
    *,
    frequency: Callable[[str], int] | None = None,
) -> Triage:
    """The decision of :func:`cairn.recall.triage.triage`."""
    text = unicodedata.normalize("NFKC", message or "")[:MAX_MESSAGE_CHARS]
    prose, pasted = _split_pasted(text)
    attached = " ".join(a for a in attachments if isinstance(a, str))[:MAX_MESSAGE_CHARS]
    flat = " ".join(prose.split())

    if _is_slash_command(flat) and not attached:
        return Triage(Decision.SKIP, "a slash command: the host runs it")
    if pasted and not flat.strip() and not attached:
        return Triage(Decision.SKIP, "pasted output with no reference to earlier work")
    if _TO_REMEMBER.match(flat) and not attached:
        return Triage(Decision.SKIP, "a statement to remember, not a question about earlier work")
    if _is_ack(flat) and not attached:
        return Triage(Decision.SKIP, "context-free: an acknowledgement or continuation")

    cues = tuple(dict.fromkeys(m.group(0).lower() for p, _ in _HISTORY_CUES for m in p.finditer(flat)))
    anchors = _anchors(flat) + _anchors(attached)
    anchors = tuple(dict.fromkeys(a for a in anchors if a))
    # A fragment inside a longer anchor adds nothing ("IGNORE" inside "IGNORE ALL ...").
    anchors = tuple(a for a in anchors if not any(a != b and a.casefold() in b.casefold() for b in anchors))
    # The referring words themselves ("that script", "the fix from earlier") name no anchor.
    referring = {w for cue in cues for w in cue.split()}
    topics = [w for w in _topic_words(flat, anchors) if w.casefold() not in referring]

    if not flat.strip() and not attached:
        if pasted:
            return Triage(Decision.SKIP, "pasted output with no reference to earlier work")
        return Triage(Decision.SKIP, "context-free: nothing but symbols")
    if pasted and not cues and not _PERSONAL.search(_strip_phrasing(flat)) and not anchors:
        return Triage(Decision.SKIP, "pasted output with no reference to earlier work")

    extra = [w for w in topics if not any(w in a.casefold() for a in anchors)]
    intent_parts = _in_order(flat + " " + attached, list(anchors) + extra)
    if cues and not intent_parts:
        missing = next(m for p, m in _HISTORY_CUES if p.search(flat))
        return Triage(Decision.ASK, f"refers to earlier work ({cues[0]!r}) without saying which {missing}",
                      missing=missing, cues=cues)

    both = f"{flat}\n{attached}" if attached else flat  # an attachment takes part in the decision
    personal = bool(_PERSONAL.search(_strip_phrasing(both))) or _definite(both)
    # Chinese has no articles to mark "the thing of ours": a topic the store holds does.
    stored_topic = frequency is not None and any(_CJK_RUN.fullmatch(w) and _known(w, frequency) for w in topics)
    if not cues and not personal and not stored_topic and not _has_specific(anchors):
        return Triage(Decision.SKIP, "self-contained: names nothing of the user's own and no earlier work")
    if not intent_parts:
        return Triage(Decision.SKIP, "nothing to look for: no name, artifact, topic or date")

    if frequency is not None:
        known = [part for part in intent_parts if _known(part, frequency)]
        if not known:
            return Triage(Decision.SKIP, "nothing stored could be relevant: no record holds these words",
                          anchors=anchors, cues=cues)
    intent = " ".join(intent_parts)
    why = "refers to earlier work" if cues else ("about the user's own work or life" if personal else "names a specific")
    return Triage(Decision.RETRIEVE, f"{why}: look for {intent!r}", intent=intent, anchors=anchors, cues=cues)


def _in_order(text: str, parts: list[str]) -> list[str]:
    """``parts`` in the order they occur in ``text``: word order is evidence (phrases)."""
    folded = text.casefold()
    return sorted(parts, key=lambda part: (folded.find(part.casefold()) % (len(folded) + 1)))


def _split_pasted(text: str) -> tuple[str, bool]:
    """The message's own prose, and whether machine output (code, a trace, a log) was pasted
    into it. Fenced blocks and runs of machine-looking lines are removed from the prose."""
    pasted = False
    if "```" in text:
        text, count = _FENCE.subn(" ", text)
        pasted = count > 0
    lines = text.splitlines()
    if len(lines) >= 3:
        machine = [bool(_MACHINE_LINE.match(line)) for line in lines]
        if sum(machine) >= 2:
            pasted = True
            lines = [line for line, m in zip(lines, machine, strict=True) if not m]
    return "\n".join(lines), pasted


def _is_slash_command(flat: str) -> bool:
    return bool(re.fullmatch(r"/[a-z][\w:-]*(?:\s+\S+){0,3}", flat.strip()))


def _is_ack(flat: str) -> bool:
    if _EMOJI_ONLY.match(flat):
        return True
    words = [w for w in re.split(r"[\s,.!?;:~，。！？、…]+", flat.casefold()) if w]
    if not words or len(words) > 6:
        return False
    if all(w in _ACK for w in words):
        return True
    joined = "".join(words)
    return len(words) <= 2 and joined in _ACK


def _strip_phrasing(flat: str) -> str:
    return _PHRASING.sub(" ", flat)


def _anchors(text: str) -> tuple[str, ...]:
    """Distinctive fragments, verbatim: quoted phrases, identifiers and versions, proper
    names, dates and time cues, CJK names in brackets."""
    if not text:
        return ()
    found: list[str] = []
    for m in _QUOTED_RE.finditer(text):
        found.append(next(g for g in m.groups() if g).strip())
    for m in _IDENT_RE.finditer(text):
        found.append(m.group(0))
    for m in _NAME_RE.finditer(text):
        words = m.group(1).split()
        while words and words[0].casefold().strip("'’") in _CAPITAL_STOP:
            words = words[1:]
        words = [w.rstrip("'’s").rstrip("'’") if w.endswith(("'s", "’s")) else w for w in words]
        if words:
            found.append(" ".join(words))
    for m in _TIME_CUES.finditer(text):
        found.append(m.group(0))
    for m in re.finditer(r"(?<![\w.])\d{2,}(?![\w.])", text):
        found.append(m.group(0))  # an amount or a count: distinctive, verbatim
    for word in re.findall(r"[A-Za-z]+", text):
        if word.casefold() in MONTH_WORDS and len(word) > 3:
            found.append(word)
    return tuple(f for f in found if f.casefold() not in _CAPITAL_STOP and f.casefold() not in _GENERIC)


def _topic_words(flat: str, anchors: tuple[str, ...]) -> list[str]:
    """The message's content words that are neither phrasing nor reference: what it is
    *about*. For CJK text, runs of two or more ideographs with the referring words removed."""
    words: list[str] = []
    for token in tokenize(flat):
        if token.stop or token.cjk:
            continue
        if token.surface in _GENERIC or len(token.surface) < 3:
            continue
        if token.surface.isdigit():
            continue
        words.append(token.surface)
    for run in _CJK_RUN.findall(flat):
        for cue in ("上次", "上回", "之前", "以前", "还记得", "记得", "那个", "那次", "我们", "咱们", "你们", "什么",
                    "怎么", "为什么", "哪个", "哪里", "时候", "决定", "讨论", "说过", "用过", "老样子", "照旧", "一样",
                    "提过", "告诉过你", "告诉", "建议过", "聊过", "约好", "选了", "一下", "可以", "是不是", "怎么样", "如何",
                    "帮我", "给我", "请问", "一个", "喜欢"):
            run = run.replace(cue, " ")
        for piece in re.split(r"[\s了吗呢吧啊的得地着过是在有和与就都也还又把被这那哪]+", run):
            if len(piece) >= 2 and piece not in _GENERIC and piece not in STOPWORDS:
                words.append(piece)
    return list(dict.fromkeys(words))


def _definite(flat: str) -> bool:
    """Whether the message refers to a particular thing of the user's world by a definite
    phrase whose words are not all generic ("the payments service", "this repo"); "the
    capital of France" names a thing by what it belongs to and does not count."""
    for m in _DEFINITE.finditer(flat):
        following = re.findall(r"[^\W_][\w-]*", flat[m.end():])[:3]
        words: list[str] = []
        for word in (w.casefold() for w in following):
            if word in STOPWORDS:
                if word == "of" and len(words) == 1:
                    words = []
                break
            words.append(word)
        if any(w not in _GENERIC and w not in _GENERAL_NOUNS for w in words):
            return True
    return False


# Nouns a definite phrase can use without pointing at anything of the user's own.
_GENERAL_NOUNS = frozenset(
    """
    answer question result output input difference meaning reason example code snippet function string list array
    number file line error message above following below world internet weather news best fastest easiest simplest
    way end beginning rest moment time same other first last next word sentence text paragraph page
    """.split()
)


def _has_specific(anchors: tuple[str, ...]) -> bool:
    """Whether an anchor names something particular (not a bare time cue or number)."""
    return any(not _TIME_CUES.fullmatch(a) and not a.isdigit() for a in anchors)


def _known(fragment: str, frequency: Callable[[str], int]) -> bool:
    """Whether the store holds any distinctive word of ``fragment``."""
    for token in tokenize(fragment):
        if token.stop or token.surface in _GENERIC:
            continue
        if frequency(token.term) > 0:
            return True
    return False


__all__ = ["MAX_MESSAGE_CHARS", "decide"]
