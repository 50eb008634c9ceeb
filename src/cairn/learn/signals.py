"""What a user turn says about the answer just before it: it worked, or it was right.

Pure rules, no model, English and Chinese. :func:`read_signal` reads one user turn and
returns at most one reinforcement outcome (the table of docs/learning.md):

* ``explicit_reinforcement`` (+1.0) — the user approves what was said or done, in so many
  words: "exactly", "that's right", "yes, remember that", "exactly, always do it that
  way", "keep doing it that way", 没错, 对，就是这样, 记住这个, 以后都这样;
* ``implicit_success`` (+0.2) — the answer worked: "that worked", "perfect, thanks",
  "great, it passes now", "works now", "thanks", 好了, 可以了, 谢谢, 解决了, 测试通过了.

The turn's *first* sentence must consist of such phrases and nothing else but filler
("ok", "oh", "yes", "now", 嗯, 好的 …): "thanks for nothing", "thanks, but it still fails",
"yeah right, that worked", "great, now it's broken" leave a remainder and are no signal.
No later sentence may carry a sign of failure or contrast ("but", "still", "fails",
"error", "not", 但是, 还是, 报错, 不行 …): "Perfect. But the CI is red" is no signal either. A
question is never one ("did that work?"). Approval outranks success ("exactly, thanks" is
a reinforcement). Whom a signal concerns is not decided here: the caller links it to
what was injected just before (see :mod:`cairn.engine.capturing`).

:func:`prompt_key` is the one key under which a prompt's text is remembered by a host
(the Claude Code hook's ledger) and found again in a transcript: whitespace-normalised,
hashed, so the ledger never holds the prompt's words.
"""

from __future__ import annotations

import hashlib
import re

SUCCESS = "implicit_success"
REINFORCEMENT = "explicit_reinforcement"


def prompt_key(text: str) -> str:
    """The key of a prompt's text: its words, whitespace-normalised, hashed."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8", "surrogatepass")).hexdigest()[:24]


_APPROVAL = [
    r"exactly", r"precisely", r"spot on", r"you got it", r"bingo",
    r"(?:that'?s|that is|this is|yes,? that'?s) (?:right|correct|it|exactly right|the way)",
    r"correct", r"good memory", r"you remembered (?:right|correctly)",
    r"(?:please )?remember (?:that|this|it)(?: for next time| for later)?",
    r"keep (?:that|this|it) in mind", r"(?:please )?always do (?:it )?(?:that|this)(?: way)?",
    r"(?:please )?keep doing (?:it )?(?:that|this)(?: way)?", r"do it (?:that|this) way from now on",
    r"没错", r"就是这样", r"就是这个", r"完全正确", r"说得对", r"正确", r"记住这个", r"记住这一点", r"记住了吗",
    r"以后都这样(?:做)?", r"以后也这样(?:做)?", r"就这么做", r"就这样做",
]
_SUCCESS = [
    r"(?:that|it|this|the fix|the change|your fix|the patch)(?: finally| really)? "
    r"(?:worked|works|did it|did the trick|fixed it|solved it|helped|is working|works fine|works now)",
    r"(?:it|everything|the build|the tests?|all tests|ci|the pipeline|the script|the app) "
    r"(?:works|work|passes|pass|is passing|are passing|is green|are green|builds|runs|compiles)(?: fine| again)?",
    r"works(?: fine)?", r"all green", r"(?:problem |issue )?(?:fixed|solved|resolved)", r"lgtm", r"looks good",
    r"thanks?(?: you)?(?: so much| a lot| very much)?(?: for (?:the|your|all the) (?:help|fix|quick fix|answer|explanation))?",
    r"thx", r"cheers", r"much appreciated", r"appreciate it", r"perfect", r"great", r"awesome", r"excellent",
    r"nice", r"brilliant", r"wonderful", r"amazing", r"sweet", r"that'?s it", r"done",
    r"好了", r"可以了", r"谢谢(?:你|啦)?", r"多谢", r"感谢", r"成功了", r"解决了", r"搞定了?", r"没问题了", r"能用了",
    r"可以用了", r"行了", r"好使了", r"修好了", r"跑通了", r"(?:测试)?通过了", r"完美", r"太好了", r"棒",
]
_FILLER = [
    r"ok(?:ay)?", r"oh", r"ah", r"wow", r"yes", r"yep", r"yeah", r"yup", r"so", r"now", r"finally", r"really",
    r"right", r"good", r"very", r"all", r"man", r"mate", r"indeed", r"again",
    r"嗯+", r"哦", r"噢", r"啊", r"呀", r"啦", r"了", r"哈+", r"好的?", r"对的?", r"是的", r"现在", r"终于", r"真的?",
    r"非常", r"吧", r"呢",
]


def _alternation(phrases: list[str]) -> str:
    # Longest first, so that "thanks for the help" is taken whole before "thanks".
    return "|".join(sorted(phrases, key=len, reverse=True))


_WORDY = r"(?<![\w'])(?:{})(?![\w'])"
_APPROVAL_RE = re.compile(_WORDY.format(_alternation(_APPROVAL)), re.I)
_SUCCESS_RE = re.compile(_WORDY.format(_alternation(_SUCCESS)), re.I)
_FILLER_RE = re.compile(_WORDY.format(_alternation(_FILLER)), re.I)
# CJK phrases carry no word boundaries: the same lists, matched anywhere.
_CJK = re.compile(r"[\u4e00-\u9fff]")
_APPROVAL_CJK = re.compile(_alternation([p for p in _APPROVAL if _CJK.search(p)]))
_SUCCESS_CJK = re.compile(_alternation([p for p in _SUCCESS if _CJK.search(p)]))
_FILLER_CJK = re.compile(_alternation([p for p in _FILLER if _CJK.search(p)]))
_PUNCT = re.compile(r"[\s,.!~…;:，。！、；：—–-]+")

# A sign that the answer did not (quite) work, or that the user is about to say so.
_FAILURE = re.compile(
    r"\b(?:but|however|though|although|except|still|yet|not|no|nope|never|nothing|n't|didn'?t|doesn'?t|isn'?t|"
    r"won'?t|wasn'?t|can'?t|cannot|fail\w*|error\w*|broke\w*|break\w*|crash\w*|wrong|worse|bug|red|"
    r"exception|traceback|sarcasm|sure it does|as if|yeah,? right)\b"
    r"|但|不过|还是|仍然|依然|又|报错|失败|不行|不对|没用|没有|错误|崩溃|有问题|不能|不可以|别", re.I)
_QUESTION = re.compile(r"[?？]|吗")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


def read_signal(text: str) -> str | None:
    """``explicit_reinforcement``, ``implicit_success`` or None (see the module docstring)."""
    sentences = [s.strip() for s in _SENTENCE.findall(text.strip()) if s.strip()]
    if not sentences:
        return None
    first = sentences[0]  # later sentences may ask for the next thing; only a sign of failure matters there
    if _QUESTION.search(first) or any(_FAILURE.search(_without_phrases(s)) for s in sentences):
        return None
    approval = bool(_APPROVAL_RE.search(first) or _APPROVAL_CJK.search(first))
    success = bool(_SUCCESS_RE.search(first) or _SUCCESS_CJK.search(first))
    if not (approval or success) or _remainder(first):
        return None
    return REINFORCEMENT if approval else SUCCESS


def _without_phrases(sentence: str) -> str:
    """The sentence without its signal phrases ("没问题了" holds 没 but says it works)."""
    for pattern in (_APPROVAL_RE, _SUCCESS_RE, _APPROVAL_CJK, _SUCCESS_CJK):
        sentence = pattern.sub(" ", sentence)
    return sentence


def _remainder(sentence: str) -> str:
    """What is left of a sentence once its signal phrases and filler are taken out."""
    left = _without_phrases(sentence)
    left = _FILLER_CJK.sub(" ", _FILLER_RE.sub(" ", left))
    return _PUNCT.sub("", left)
