# ruff: noqa: E501 - the rule table reads best one rule a line, as scanners publish theirs
"""Secret redaction before storage.

Every text Cairn writes (record content, aliases, origins, source ids, event reasons,
sources) passes through :func:`redact` first, so a secret never reaches the record, the
full-text index or an event snapshot. A match is replaced by a typed placeholder such as
``[REDACTED:aws-key]``.

The table below is Cairn's own, written from the shapes that established secret scanners
(chiefly the gitleaks rule set) publish and that issuers document. Three families:

* **Issued tokens** — a fixed prefix, alphabet and length (``ghp_…``, ``sk_live_…``,
  ``AKIA…``, ``hf_…``): matched anywhere, because the prefix alone makes them secrets.
* **Credentials in context** — a password inside a connection URL, ``.netrc``,
  ``sshpass -p``, ``curl -u``, an ``Authorization`` header, Azure connection strings, a
  signed URL's ``sig=``: the surrounding syntax says which part is secret.
* **Assignments** — ``NAME = value`` / ``NAME: value`` where NAME ends in a secret word
  (``DB_PASSWORD``, ``OPENAI_API_KEY``, ``client_secret``, ``_authToken``), and the prose
  form "the password is VALUE". Here the value must also *look* like a secret: code
  (``tokenizer.encode(text)``, ``os.environ[...]``, ``$(pwd)``), placeholders
  (``<token>``, ``${TOKEN}``, ``****``) and words describing a credential's state
  ("field", "expired", "required") are left alone; an unquoted value needs digits,
  symbols or mixed case, or enough entropy, unless it follows ``=``/``:``.

Ordinary hex ids, UUIDs, git SHAs and base64 in prose carry no prefix and no keyword, so
they stay untouched; the tests hold ≥ 60 such near-misses beside ≥ 100 secret shapes
(``python -m cairn.bench.drills redaction`` prints the rates).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import NamedTuple


class Pattern(NamedTuple):
    label: str
    source: str  # the regular expression, compiled on first use (see regex)
    flags: int = 0
    group: int = 0  # which group is the secret (0: the whole match)
    keywords: tuple[str, ...] = ()  # lower-case; the regex runs only when one occurs (speed)
    accept: Callable[[str], bool] | None = None  # a further check on the secret's text
    # A cheaper expression every match must contain (searched on the text as written): when
    # it is absent the rule cannot match and its costlier regex is skipped (speed).
    needs: str = ""

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled rule. Compiled when a text first carries one of its keywords: a
        process that redacts a short query (a recall's trace) would otherwise pay for
        compiling all of them (about 7 ms) at import."""
        return _compiled(self.source, self.flags)


@cache
def _compiled(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


def _p(
    label: str,
    pattern: str,
    group: int = 0,
    flags: int = 0,
    keywords: tuple[str, ...] = (),
    accept: Callable[[str], bool] | None = None,
    needs: str = "",
) -> Pattern:
    return Pattern(label, pattern, flags, group, keywords, accept, needs)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    if not text:
        return 0.0
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


# Words that, after "password:" or "token is", describe the credential rather than being it.
STATE_WORDS = frozenset(
    """
    a an the this that it its my your our their his her none null nil undefined empty blank
    true false yes no ok field fields input box prompt required optional missing invalid valid
    expired expires expiring revoked rotated reset changed updated set unset stored saved hashed
    encrypted hidden masked redacted protected incorrect wrong correct same different new old
    weak strong short long too not only still also never always here there below above
    from in on of for to with and or is are was be been being see read use used using via
    please enter type provided given supplied needed wanted sent shown printed logged leaked
    rotation policy length format manager vault env environment variable config file secret
    secrets token tokens password passwords key keys string value values unknown placeholder
    """.split()
)

_NAME_TAIL = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret(?:[_-]?key)?|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|(?:auth|access|refresh|api|bearer|session|bot|secret|client)?[_-]?token|authtoken|credentials?|client[_-]?secret"
    r"|account[_-]?key|shared[_-]?access[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key)"
)
# An identifier ending in a secret word: DB_PASSWORD, openaiApiKey, _authToken, "client_secret".
_NAME = rf"(?<![A-Za-z0-9])[A-Za-z0-9_.-]*?{_NAME_TAIL}(?![A-Za-z0-9])"


@cache
def _not_a_value() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(placeholder, code): what an assigned value that is not a credential looks like.
    Compiled when a text first holds a candidate value, not on import: most texts a
    process redacts (a recall's query) hold none (about 0.5 ms of start-up)."""
    return (
        re.compile(r"^(?:x+|\*+|\.+|-+|_+|#+|\?+|0+|<[^>]*>|\{\{.*\}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%)$",
                   re.IGNORECASE),
        re.compile(r"[()\[\]{}]|\$\(|\$\{|^\$|%\(|%s|^<|\.\w+\(|^os\.|^env\.|^process\.|^self\.|^getpass"),
    )


def _looks_secret(value: str, *, strict: bool) -> bool:
    """Whether an assigned value is a credential rather than code, a placeholder or a word
    about the credential. ``strict`` (prose, "is"): it must also carry digits, symbols or
    mixed case, as passwords chosen under a policy do."""
    bare = value.strip("\"'`").rstrip(".,;:!?")
    placeholder, code = _not_a_value()
    if len(bare) < 4 or placeholder.match(bare) or code.search(bare):
        return False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", bare) and re.search(r"(?i)pass|pwd|secret|token|key|cred|auth", bare):
        return False  # another variable's name: "password == confirm_password"
    if bare.lower() in STATE_WORDS or bare.lower().rstrip(".,;!") in STATE_WORDS:
        return False
    if bare.isdigit() and len(bare) < 8:
        return False  # ports, counts, limits: "max_token: 4096"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", bare):
        return False  # a dotted name: settings.SECRET_KEY, config.token
    varied = bool(re.search(r"\d", bare)) + bool(re.search(r"[^A-Za-z0-9]", bare)) + (
        bare != bare.lower() and bare != bare.upper()
    )
    if strict:
        return varied >= 1 and not re.fullmatch(r"[a-z]+[.,;!?]?", bare)
    return varied >= 1 or value[:1] in "\"'" or entropy(bare) >= 2.5


def _assigned(value: str) -> bool:
    return _looks_secret(value, strict=False)


def _stated(value: str) -> bool:
    return _looks_secret(value, strict=True)


def _bare(value: str) -> bool:
    """A value right after the word "password" with no verb ("password correcthorse99"):
    only when it is shaped like a chosen password — 8+ characters mixing digits with
    capitals or symbols, or 10+ with two digits — so "password reset", "password v2" or
    "password sha256 hashes" stay as they are."""
    core = value.rstrip(".,;:!?")
    digits = sum(c.isdigit() for c in core)
    upper_or_symbol = any(c.isupper() or not c.isalnum() for c in core)
    shaped = (len(core) >= 8 and digits and upper_or_symbol) or (len(core) >= 10 and digits >= 2)
    return bool(shaped) and any(c.isalpha() for c in core) and _looks_secret(value, strict=True)


def _high_entropy(min_bits: float) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        return entropy(value) >= min_bits and bool(re.search(r"\d", value)) and bool(re.search(r"[A-Za-z]", value))

    return check


def _url_password(value: str) -> bool:
    placeholder, code = _not_a_value()
    return len(value) >= 3 and not placeholder.match(value) and not code.search(value)


_END = r"(?![A-Za-z0-9_-])"
_START = r"(?<![A-Za-z0-9_-])"

PATTERNS: tuple[Pattern, ...] = (
    # -- keys and issued tokens: the prefix makes them secrets -------------------------
    _p(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        flags=re.DOTALL, keywords=("private key",),
    ),
    _p("aws-key", r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])", keywords=("akia", "asia", "abia", "acca", "a3t")),
    _p(
        "aws-secret",
        r"(?i:aws[\w .-]{0,30}?(?:secret|key)[\w .-]{0,20}?(?:[:=]|\bis\b|\bof\b)?\s*[\"']?|(?:AKIA|ASIA)[A-Z0-9]{16}\]?[:/ ,]\s*|\[REDACTED:aws-key\][:/ ,]\s*)"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        group=1, keywords=("aws", "akia", "asia", "aws-key"), accept=_high_entropy(3.5),
    ),
    _p("github-token", rf"{_START}(?:gh[pousr]_[A-Za-z0-9]{{36,255}}|github_pat_[A-Za-z0-9_]{{22,255}})", keywords=("gh", "github_pat_")),
    _p("gitlab-token", rf"{_START}(?:glpat|glptt|glrt|gldt|glft|gloas|glsoat|glimt|glffct|glagent|glcbt)-[A-Za-z0-9_\-]{{20,}}", keywords=("gl",)),
    _p("slack-token", r"(?<![A-Za-z0-9])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}", keywords=("xox", "xapp-")),
    _p("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{20,}", keywords=("hooks.slack.com",)),
    _p("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}", keywords=("discord",)),
    _p("stripe-key", rf"{_START}(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{{10,99}}{_END}", keywords=("k_live_", "k_test_", "k_prod_")),
    _p("stripe-webhook-secret", rf"{_START}whsec_[A-Za-z0-9]{{20,}}{_END}", keywords=("whsec_",)),
    _p("anthropic-key", rf"{_START}sk-ant-[a-z]{{2,8}}\d{{0,3}}-[A-Za-z0-9_-]{{20,}}", keywords=("sk-ant-",)),
    _p("openai-key", rf"{_START}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{{20,}}{_END}", keywords=("sk-",),
       accept=_high_entropy(3.0)),
    _p("google-api-key", rf"{_START}AIza[0-9A-Za-z_-]{{35}}{_END}", keywords=("aiza",)),
    _p("google-oauth-secret", rf"{_START}GOCSPX-[A-Za-z0-9_-]{{20,}}", keywords=("gocspx-",)),
    _p("google-oauth-token", rf"{_START}ya29\.[0-9A-Za-z_-]{{20,}}", keywords=("ya29.",)),
    _p("firebase-server-key", rf"{_START}AAAA[A-Za-z0-9_-]{{7}}:APA91b[A-Za-z0-9_-]{{20,}}", keywords=("apa91b",)),
    _p("npm-token", rf"{_START}npm_[A-Za-z0-9]{{36}}{_END}", keywords=("npm_",)),
    _p("pypi-token", rf"{_START}pypi-AgE[A-Za-z0-9_-]{{40,}}", keywords=("pypi-age",)),
    _p("twilio-key", r"(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])", keywords=("sk",)),
    _p("sendgrid-key", rf"{_START}SG\.[A-Za-z0-9_-]{{16,32}}\.[A-Za-z0-9_-]{{16,64}}", keywords=("sg.",)),
    _p("mailgun-key", rf"{_START}(?:key|pubkey)-[0-9a-f]{{32}}{_END}", keywords=("key-",)),
    _p("mailchimp-key", r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])", keywords=("-us",)),
    _p("digitalocean-token", rf"{_START}do[opr]_v1_[a-f0-9]{{64}}{_END}", keywords=("_v1_",)),
    _p("shopify-token", rf"{_START}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}{_END}", keywords=("shp",)),
    _p("huggingface-token", rf"{_START}(?:hf_[A-Za-z0-9]{{30,}}|api_org_[A-Za-z0-9]{{30,}}){_END}", keywords=("hf_", "api_org_")),
    _p("docker-token", rf"{_START}dckr_(?:pat|oat)_[A-Za-z0-9_-]{{20,}}", keywords=("dckr_",)),
    _p("vault-token", rf"{_START}(?:hv[sbr]\.[A-Za-z0-9_-]{{24,}}|s\.[A-Za-z0-9]{{24}}{_END})", keywords=("hvs.", "hvb.", "hvr.", "s.")),
    _p("databricks-token", rf"{_START}dapi[a-f0-9]{{32}}(?:-\d)?{_END}", keywords=("dapi",)),
    _p("telegram-bot-token", r"(?<![A-Za-z0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", keywords=(":aa",)),
    _p("discord-token", r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])",
       accept=_high_entropy(3.5), needs=r"\."),
    _p("linear-key", rf"{_START}lin_(?:api|oauth)_[A-Za-z0-9]{{32,}}", keywords=("lin_",)),
    _p("atlassian-token", rf"{_START}(?:ATATT3|ATCTT3|ATBB)[A-Za-z0-9_=-]{{24,}}", keywords=("atatt3", "atctt3", "atbb")),
    _p("square-token", rf"{_START}(?:sq0atp-|sq0csp-|EAAA)[A-Za-z0-9_-]{{22,}}", keywords=("sq0", "eaaa")),
    _p("okta-token", r"(?i:okta)[\w .-]{0,30}?[:=\s]\s*[\"']?(00[A-Za-z0-9_-]{40})(?![A-Za-z0-9_-])", group=1, keywords=("okta",)),
    _p("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", keywords=("age-secret-key-",)),
    _p("heroku-key", rf"{_START}HRKU-[A-Za-z0-9_-]{{20,}}", keywords=("hrku-",)),
    _p("perplexity-key", rf"{_START}pplx-[A-Za-z0-9]{{40,}}", keywords=("pplx-",)),
    _p("groq-key", rf"{_START}gsk_[A-Za-z0-9]{{40,}}", keywords=("gsk_",)),
    _p("replicate-token", rf"{_START}r8_[A-Za-z0-9]{{30,}}", keywords=("r8_",)),
    _p("notion-token", rf"{_START}(?:ntn_\d{{11}}[A-Za-z0-9]{{30,}}|secret_[A-Za-z0-9]{{43}}){_END}", keywords=("ntn_", "secret_")),
    _p("postman-key", rf"{_START}PMAK-[a-f0-9]{{24}}-[a-f0-9]{{34}}", keywords=("pmak-",)),
    _p("rubygems-key", rf"{_START}rubygems_[a-f0-9]{{48}}", keywords=("rubygems_",)),
    _p("grafana-token", rf"{_START}(?:glsa_[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}}|glc_[A-Za-z0-9+/]{{32,}}=*|eyJrIjoi[A-Za-z0-9]{{40,}}=*)",
       keywords=("glsa_", "glc_", "eyjrijoi")),
    _p("sentry-token", rf"{_START}(?:sntrys_[A-Za-z0-9+/=_]{{40,}}|sntryu_[a-f0-9]{{64}})", keywords=("sntry",)),
    _p("doppler-token", rf"{_START}dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{{40,}}", keywords=("dp.",)),
    _p("new-relic-key", rf"{_START}NR(?:AK|II|JS|RA)-[A-Za-z0-9]{{19,32}}", keywords=("nrak-", "nrii-", "nrjs-", "nrra-")),
    _p("pulumi-token", rf"{_START}pul-[a-f0-9]{{40}}", keywords=("pul-",)),
    _p("planetscale-token", rf"{_START}pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]{{32,}}", keywords=("pscale_",)),
    _p("airtable-token", rf"{_START}pat[A-Za-z0-9]{{14}}\.[a-f0-9]{{64}}", keywords=("pat",)),
    _p("figma-token", rf"{_START}figd_[A-Za-z0-9_-]{{30,}}", keywords=("figd_",)),
    _p("supabase-token", rf"{_START}sbp_[a-f0-9]{{40}}", keywords=("sbp_",)),
    _p("azure-client-secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", keywords=("q~",)),
    _p("facebook-token", rf"{_START}EAA[CM][A-Za-z0-9]{{60,}}", keywords=("eaac", "eaam")),
    _p("twitter-bearer", r"A{22}[A-Za-z0-9%]{60,}", keywords=("aaaaaaaaaaaaaaaaaaaaaa",)),
    _p("mapbox-secret", rf"{_START}sk\.eyJ[A-Za-z0-9_-]{{40,}}\.[A-Za-z0-9_-]{{20,}}", keywords=("sk.eyj",)),
    _p("dropbox-token", rf"{_START}sl\.[A-Za-z0-9_-]{{60,}}", keywords=("sl.",)),
    _p("alibaba-key", rf"{_START}LTAI[A-Za-z0-9]{{20}}{_END}", keywords=("ltai",)),
    _p("tencent-key", rf"{_START}AKID[A-Za-z0-9]{{32}}{_END}", keywords=("akid",)),
    _p("onepassword-token", rf"{_START}ops_eyJ[A-Za-z0-9+/]{{100,}}=*", keywords=("ops_eyj",)),
    _p("openshift-token", rf"{_START}sha256~[A-Za-z0-9_-]{{43}}", keywords=("sha256~",)),
    _p("flyio-token", rf"{_START}(?:fo1_[A-Za-z0-9_-]{{39,}}|fm[12][ar]?_[A-Za-z0-9+/]{{60,}}=*)", keywords=("fo1_", "fm1", "fm2")),
    _p("prefect-key", rf"{_START}pnu_[A-Za-z0-9]{{36}}{_END}", keywords=("pnu_",)),
    _p("readme-key", rf"{_START}rdme_[a-z0-9]{{70}}", keywords=("rdme_",)),
    _p("dynatrace-token", rf"{_START}dt0c01\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{64}}", keywords=("dt0c01.",)),
    _p("sendinblue-key", rf"{_START}xkeysib-[a-f0-9]{{64}}-[A-Za-z0-9]{{16}}", keywords=("xkeysib-",)),
    _p("artifactory-key", rf"{_START}AKCp[A-Za-z0-9]{{60,}}", keywords=("akcp",)),
    _p("jwt", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", keywords=("eyj",)),
    # -- credentials placed by syntax --------------------------------------------------
    _p("url-password", r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@?#\[\]]*:([^\s@/?#]+)@(?=[A-Za-z0-9\[])", group=1,
       keywords=("://",), accept=_url_password),
    _p("basic-auth", r"(?i:\bauthorization\b[\"']?\s*[:=]\s*[\"']?basic)\s+([A-Za-z0-9+/]{8,}={0,2})", group=1, keywords=("basic",)),
    _p("bearer-token", r"(?i:\b(?:bearer|token))\s+([A-Za-z0-9\-._~+/]{16,}=*)(?![A-Za-z0-9\-._~+/=])", group=1,
       keywords=("bearer", "token"), accept=_high_entropy(3.0)),
    _p("netrc-password", r"(?i:\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password)\s+(\S+)", group=1, keywords=("machine",), accept=_assigned),
    _p("sshpass-password", r"\bsshpass\s+-p\s*(\"[^\"]+\"|'[^']+'|\S+)", group=1, keywords=("sshpass",), accept=_assigned),
    _p("cli-password", r"\b(?:mysql|mysqldump|mariadb)\b[^\n]*?\s-p(\S{3,})", group=1, keywords=("mysql", "mariadb"), accept=_assigned),
    _p("curl-user", r"\bcurl\b[^\n]*?\s(?:-u|--user)(?:\s+|=)[\"']?([^\s:\"']+:[^\s\"']+)", group=1, keywords=("curl",), accept=_assigned),
    _p("azure-key", r"(?i:\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig))=([A-Za-z0-9%+/=]{16,})", group=1,
       keywords=("accountkey", "sharedaccess", "sig=")),
    _p("url-secret", r"[?&](?i:access_token|api_key|apikey|auth|token|secret|password|client_secret|signature|key)=([^&\s#\"']{12,})",
       group=1, keywords=("?", "&"), accept=_high_entropy(3.0)),
    # -- assignments and statements ----------------------------------------------------
    _p(
        "password",
        rf"(?i:[\"']?{_NAME}[\"']?)\s*(?::=|=>|=(?!=)|:)\s*(\"[^\"\n]{{4,}}\"|'[^'\n]{{4,}}'|`[^`\n]{{4,}}`|[^\s\"'`,;]{{4,}})",
        group=1, keywords=("pass", "pwd", "secret", "key", "token", "credential"), accept=_assigned,
        needs=r"[:=]",  # every separator holds one; most prose that says "key" has neither
    ),
    _p(
        "password",
        r"(?i:\b(?:password|passphrase|passcode|pass ?word|pwd|secret|api key|token|pin)\s+(?:for\s+\S+\s+|of\s+\S+\s+)?(?:is|was|=)"
        r"(?:\s+(?:now|still|set to|changed to))?)\s*:?\s*(\"[^\"\n]{3,}\"|'[^'\n]{3,}'|[^\s\"',;]{4,}?)(?=[\s,;]|[.!?](?:\s|$)|$)",
        group=1, keywords=("pass", "pwd", "secret", "key", "token", "pin"), accept=_stated,
        needs=r"(?i:\s(?:is|was))|=",  # the verb, always after a space, or "="
    ),
    _p("password", r"(?i:\b(?:password|passphrase|pwd))\s+([^\s\"',;<>]{6,})", group=1, keywords=("pass", "pwd"), accept=_bare),
)


def placeholder(label: str) -> str:
    return f"[REDACTED:{label}]"


_KEYWORDS = tuple(dict.fromkeys(k for pattern in PATTERNS for k in pattern.keywords))
_ALWAYS = frozenset(i for i, pattern in enumerate(PATTERNS) if not pattern.keywords)
# Before the prefix-tree scan (_keyword_scan) is built, a text of up to _SHORT characters
# is searched for each pattern's keywords in turn: about 25 to 40 µs a text against the
# scan's 1 to 8, but building the scan costs about 7 ms. The first _CHEAP_TEXTS short
# texts of a process go that way (a recall redacts its query and a few spans), then the
# scan is built for the rest (an ingest redacts thousands of turns).
_SHORT = 200
_CHEAP_TEXTS = 64
_cheap_left = [_CHEAP_TEXTS]


def _trie_pattern(words: tuple[str, ...]) -> str:
    """One regular expression matching any of ``words``, shaped as their prefix tree
    (``a(?:kia|sia)|gh(?:o_|p_)…``): at each position of a text the engine tries one
    branch per distinct next character instead of one per word, which makes the scan of
    a text with none of them (the common case) about four times faster than a flat
    alternation of a hundred keywords. Greedy, so a match is the longest word starting
    at its position."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def branch(node: dict) -> str:
        ends = "" in node
        alternatives = [re.escape(char) + branch(child) for char, child in sorted(node.items()) if char]
        if not alternatives:
            return ""
        body = alternatives[0] if len(alternatives) == 1 and len(alternatives[0]) == 1 else f"(?:{'|'.join(alternatives)})"
        return body + "?" if ends else body

    return branch(trie)


@cache
def _keyword_scan() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, frozenset[int]]]:
    """What :func:`_todo` scans with, built on first use (a process that never redacts,
    such as a hook that only triages, does not pay the few milliseconds of compiling):

    * any keyword at all, as one prefix-tree expression;
    * every position where a keyword starts (the lookahead consumes nothing, so
      overlapping keywords are all met), the longest keyword there as the group;
    * the patterns each keyword stands for: those of every keyword it contains (a shorter
      one at the same position is a prefix of it, and the longest is the one matched)."""
    tree = _trie_pattern(_KEYWORDS)
    by_keyword = {
        k: frozenset(i for i, pattern in enumerate(PATTERNS) if any(own in k for own in pattern.keywords))
        for k in _KEYWORDS
    }
    return re.compile(tree), re.compile(f"(?=({tree}))"), by_keyword


def _todo(lowered: str, after: int) -> list[int]:
    """The patterns (indices, in order, past ``after``) that can match ``lowered``: those
    without keywords and those with a keyword in it. Found without running the rules:
    ingest redacts every turn, and most turns hold no keyword."""
    todo = set(_ALWAYS)
    if _cheap_left[0] > 0 and len(lowered) <= _SHORT:
        # The patterns whose own keywords occur, which is what the scan selects (a longer
        # keyword found stands for those it contains): a recall that traces its query
        # never builds the scan.
        _cheap_left[0] -= 1
        todo.update(i for i, pattern in enumerate(PATTERNS) if any(k in lowered for k in pattern.keywords))
        return sorted(i for i in todo if i > after)
    if len(lowered) <= _WHOLE:
        todo |= _scanned(lowered)
        return sorted(todo) if after < 0 else sorted(i for i in todo if i > after)
    # Word by word. A keyword without whitespace lies inside one whitespace-separated word
    # of the text, so the patterns selected are those of its words, plus those of the few
    # keywords holding a space, looked for in the whole text. Words repeat from text to
    # text (an ingest's turns share their vocabulary), so the words known to hold no
    # keyword are kept, and so are the patterns of those that hold one: most words of a
    # text are then set aside in one set difference instead of the scan's pass over
    # every position.
    unknown = []
    for word in set(lowered.split()) - _clean_words:
        kept = _keyword_words.get(word)
        if kept is None:
            if not word.isalpha():  # ids, numbers, code: rarely met twice, scanned below
                unknown.append(word)
                continue
            kept = _scanned(word)
            if kept:
                if len(_keyword_words) >= _WORDS_KEPT:
                    _keyword_words.clear()
                _keyword_words[word] = kept
            else:
                if len(_clean_words) >= _WORDS_KEPT:
                    _clean_words.clear()
                _clean_words.add(word)
        todo |= kept
    if unknown:
        todo |= _scanned("\n".join(unknown))  # no keyword holds a line break: none spans two words
    for keyword, patterns in _spaced_keywords():
        if keyword in lowered:
            todo |= patterns
    return sorted(todo) if after < 0 else sorted(i for i in todo if i > after)


# Texts up to this length are scanned whole: a turn id or a name is one word, rarely met
# again, and the word-by-word way pays a split and a look-up for nothing there.
_WHOLE = 24
_WORDS_KEPT = 4096  # words kept of each kind (bounded: emptied when full)
_clean_words: set[str] = set()  # words that hold no keyword
_keyword_words: dict[str, frozenset[int]] = {}  # words that hold one, with their patterns
_NO_PATTERNS: frozenset[int] = frozenset()


def _scanned(lowered: str) -> frozenset[int]:
    """The patterns (without those that always run) whose keywords occur in ``lowered``:
    the longest keyword starting at each position stands for the ones it contains."""
    anywhere, each, by_keyword = _keyword_scan()
    first = anywhere.search(lowered)
    if not first:
        return _NO_PATTERNS
    found: set[int] = set()
    for match in each.finditer(lowered, first.start()):  # no keyword starts before the first one found
        found |= by_keyword[match.group(1)]
    return frozenset(found)


@cache
def _spaced_keywords() -> tuple[tuple[str, frozenset[int]], ...]:
    """The keywords holding whitespace (which no single word holds), each with the
    patterns it is a keyword of."""
    return tuple((k, frozenset(i for i, pattern in enumerate(PATTERNS) if k in pattern.keywords))
                 for k in _KEYWORDS if any(char.isspace() for char in k))


def redact(text: str) -> tuple[str, list[str]]:
    """Return ``text`` with every secret replaced, and the labels of what was found."""
    found: list[str] = []
    todo, at = _todo(text.lower(), -1), 0
    while at < len(todo):
        index = todo[at]
        at += 1
        pattern = PATTERNS[index]
        if pattern.needs and not _compiled(pattern.needs, 0).search(text):
            continue

        def swap(match: re.Match[str], pattern: Pattern = pattern) -> str:
            secret = match.group(pattern.group)
            if "[REDACTED:" in secret or (pattern.accept is not None and not pattern.accept(secret)):
                return match.group(0)  # already redacted by an earlier pattern, or not a secret
            found.append(pattern.label)
            if pattern.group == 0:
                return placeholder(pattern.label)
            start, end = match.span(pattern.group)
            offset = match.start()
            whole = match.group(0)
            return whole[: start - offset] + placeholder(pattern.label) + whole[end - offset :]

        replaced = pattern.regex.sub(swap, text)
        if replaced != text:
            text = replaced
            todo, at = _todo(text.lower(), index), 0  # the keywords present changed with the text
    return text, found
