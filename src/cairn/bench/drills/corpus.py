"""The redaction corpus: secret shapes that must be redacted and near-miss benign strings
that must be left exactly as they are.

The shapes follow the rules published by established secret scanners (gitleaks,
detect-secrets, trufflehog) and the issuers' documented token formats; the values are
generated here from a fixed seed (never real credentials), and built from parts so that
this file does not itself look like a leak. Each secret case is ``(text, secret)``: the
case passes when ``secret`` no longer occurs in the redacted text. Each benign case
passes when redaction returns it unchanged.
"""

from __future__ import annotations

import random
import string

_RNG = random.Random(20261201)
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "/+"
URLSAFE = ALNUM + "_-"


def r(alphabet: str, n: int) -> str:
    """A deterministic pseudo-random string (the same on every run)."""
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _mixed(n: int) -> str:
    """Pseudo-random letters and digits with at least one of each class."""
    return r(string.ascii_uppercase, 1) + r(string.digits, 1) + r(ALNUM, n - 2)


AKIA = "AK" + "IA" + r(UPPER, 16)
AWS_SECRET = r(string.ascii_letters, 8) + "/" + r(B64, 21) + r(string.digits, 2) + r(string.ascii_letters, 8)
PG = "post" + "gres"

def _case(template: str, secret: str) -> tuple[str, str]:
    return template.replace("{s}", secret), secret


def _cases(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [_case(template, secret) for template, secret in rows]


SECRETS: list[tuple[str, str]] = _cases([
    # -- issued tokens ------------------------------------------------------------------
    ("aws key {s} in config", AKIA),
    ("aws_secret_access_key = {s}", AWS_SECRET),
    ("The AWS secret key is {s} for the backup user", AWS_SECRET),
    ("creds " + AKIA + ":{s}", AWS_SECRET),
    ("use {s} for the session", "AS" + "IA" + r(UPPER, 16)),
    ("gh token {s}", "gh" + "p_" + _mixed(36)),
    ("oauth {s} from the app", "gh" + "o_" + _mixed(36)),
    ("app token {s}", "gh" + "s_" + _mixed(36)),
    ("fine grained {s}", "github" + "_pat_" + _mixed(22) + "_" + _mixed(59)),
    ("gitlab {s}", "gl" + "pat-" + _mixed(20)),
    ("runner token {s}", "gl" + "rt-" + _mixed(20)),
    ("slack bot {s}", "xo" + "xb-" + r(string.digits, 12) + "-" + r(string.digits, 13) + "-" + _mixed(24)),
    ("slack user {s}", "xo" + "xp-" + r(string.digits, 12) + "-" + r(string.digits, 12) + "-" + _mixed(32)),
    ("socket mode {s}", "xa" + "pp-1-" + r(UPPER, 11) + "-" + r(string.digits, 13) + "-" + r(HEX, 64)),
    ("webhook {s}", "https://hooks.slack.com/services/T" + r(UPPER, 8) + "/B" + r(UPPER, 10) + "/" + _mixed(24)),
    ("discord hook {s}", "https://discord.com/api/webhooks/" + r(string.digits, 18) + "/" + r(URLSAFE, 68)),
    ("stripe {s}", "sk" + "_live_" + _mixed(24)),
    ("restricted {s}", "rk" + "_live_" + _mixed(24)),
    ("test mode key {s}", "sk" + "_test_" + _mixed(24)),
    ("webhook signing secret {s}", "wh" + "sec_" + _mixed(32)),
    ("openai {s}", "sk" + "-" + _mixed(20) + "T3Blbk" + "FJ" + _mixed(20)),
    ("OpenAI project key {s}", "sk" + "-proj-" + r(URLSAFE, 74) + "T3Blbk" + "FJ" + r(URLSAFE, 74)),
    ("plain openai {s}", "sk" + "-" + _mixed(48)),
    ("anthropic {s}", "sk" + "-ant-api03-" + r(URLSAFE, 93) + "AA"),
    ("claude admin {s}", "sk" + "-ant-admin01-" + r(URLSAFE, 93) + "AA"),
    ("maps {s}", "AI" + "za" + r(URLSAFE, 35)),
    ("google client secret {s}", "GOC" + "SPX-" + r(URLSAFE, 28)),
    ("oauth access {s}", "ya" + "29." + r(URLSAFE, 60)),
    ("fcm {s}", "AAAA" + r(URLSAFE, 7) + ":APA91b" + r(URLSAFE, 134)),
    ("publish with {s}", "np" + "m_" + _mixed(36)),
    ("pypi upload {s}", "py" + "pi-AgEIcHlwaS5vcmc" + r(URLSAFE, 70)),
    ("twilio api key {s}", "S" + "K" + r(HEX, 32)),
    ("sendgrid {s}", "S" + "G." + r(URLSAFE, 22) + "." + r(URLSAFE, 43)),
    ("mailgun {s}", "ke" + "y-" + r(HEX, 32)),
    ("mailchimp {s}", r(HEX, 32) + "-us14"),
    ("digitalocean {s}", "do" + "p_v1_" + r(HEX, 64)),
    ("do oauth {s}", "do" + "o_v1_" + r(HEX, 64)),
    ("shopify admin {s}", "sh" + "pat_" + r(HEX, 32)),
    ("shopify shared {s}", "sh" + "pss_" + r(HEX, 32)),
    ("hugging face {s}", "h" + "f_" + r(string.ascii_letters, 34)),
    ("hf org {s}", "api" + "_org_" + r(string.ascii_letters, 34)),
    ("docker hub {s}", "dc" + "kr_pat_" + r(URLSAFE, 27)),
    ("vault {s}", "hv" + "s." + r(URLSAFE, 95)),
    ("legacy vault token {s}", "s" + "." + _mixed(24)),
    ("databricks {s}", "da" + "pi" + r(HEX, 32)),
    ("telegram bot {s}", r(string.digits, 10) + ":" + "AA" + r(URLSAFE, 33)),
    ("discord bot {s}", "M" + r(URLSAFE, 25) + "." + r(URLSAFE, 6) + "." + r(URLSAFE, 38)),
    ("linear {s}", "lin" + "_api_" + _mixed(40)),
    ("atlassian {s}", "ATA" + "TT3" + r(URLSAFE, 186)),
    ("square {s}", "sq0" + "atp-" + r(URLSAFE, 22)),
    ("square prod {s}", "EA" + "AA" + r(URLSAFE, 60)),
    ("okta api token: {s}", "00" + r(URLSAFE, 40)),
    ("firebase web key {s}", "AI" + "za" + r(URLSAFE, 35)),
    ("age identity {s}", "AGE-" + "SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
    ("heroku {s}", "HR" + "KU-AA" + r(URLSAFE, 58)),
    ("perplexity {s}", "pp" + "lx-" + _mixed(48)),
    ("groq {s}", "gs" + "k_" + _mixed(52)),
    ("replicate {s}", "r" + "8_" + _mixed(37)),
    ("notion {s}", "nt" + "n_" + r(string.digits, 11) + _mixed(35)),
    ("postman {s}", "PM" + "AK-" + r(HEX, 24) + "-" + r(HEX, 34)),
    ("rubygems {s}", "ruby" + "gems_" + r(HEX, 48)),
    ("grafana {s}", "gl" + "sa_" + _mixed(32) + "_" + r(HEX, 8)),
    ("sentry user {s}", "sn" + "tryu_" + r(HEX, 64)),
    ("doppler {s}", "dp" + ".pt." + _mixed(43)),
    ("new relic {s}", "NR" + "AK-" + r(UPPER, 27)),
    ("pulumi {s}", "pu" + "l-" + r(HEX, 40)),
    ("planetscale {s}", "psc" + "ale_tkn_" + r(URLSAFE, 43)),
    ("airtable {s}", "pa" + "t" + _mixed(14) + "." + r(HEX, 64)),
    ("figma {s}", "fi" + "gd_" + r(URLSAFE, 40)),
    ("supabase {s}", "sb" + "p_" + r(HEX, 40)),
    ("azure ad client secret {s}", r(ALNUM, 3) + "8Q~" + r(ALNUM, 34)),
    ("facebook page {s}", "EA" + "AC" + _mixed(120)),
    ("mapbox secret {s}", "sk" + ".eyJ" + r(URLSAFE, 60) + "." + r(URLSAFE, 22)),
    ("alibaba {s}", "LT" + "AI" + _mixed(20)),
    ("prefect {s}", "pn" + "u_" + _mixed(36)),
    ("dynatrace {s}", "dt0" + "c01." + r(UPPER, 24) + "." + _mixed(64)),
    ("brevo {s}", "xkey" + "sib-" + r(HEX, 64) + "-" + _mixed(16)),
    ("jwt {s}", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + r(URLSAFE, 43)),
    ("key:\n-----BEGIN RSA PRIV" "ATE KEY-----\n{s}\n-----END RSA PRIV" "ATE KEY-----", r(B64, 64)),
    ("-----BEGIN OPENSSH PRIV" "ATE KEY-----\n{s}\n-----END OPENSSH PRIV" "ATE KEY-----", r(B64, 70)),
    # -- credentials placed by syntax ---------------------------------------------------
    (PG + "://app:{s}@db.internal:5432/billing", "Xk2" + r(ALNUM, 12)),
    ("DATABASE_URL=postgresql://billing:{s}@10.0.0.5/billing", _mixed(16)),
    ("mysql://root:{s}@mysql.local:3306/app", "Tr0ub4dor3"),
    ("mongodb+srv://admin:{s}@cluster0.mongodb.net/test", "S3cure" + r(ALNUM, 8)),
    ("redis://:{s}@cache:6379/0", "R3dis" + r(ALNUM, 10)),
    ("amqp://guest:{s}@queue:5672/", "Rabb1t" + r(ALNUM, 6)),
    ("clone https://deploy:{s}@git.example.com/org/repo.git", "Gitpw" + r(ALNUM, 10)),
    ("machine api.example.com login bot password {s}", "Netrc" + r(ALNUM, 10)),
    ("sshpass -p '{s}' ssh deploy@host", "Ssh" + r(ALNUM, 8) + "!"),
    ("curl -u admin:{s} https://api.example.com", "Curl" + r(ALNUM, 9)),
    ("curl --user ci:{s} https://ci.example.com/api", "Tok" + r(ALNUM, 12)),
    ("mysql -u root -p{s} shop", "My" + r(ALNUM, 10)),
    ("Authorization: Basic {s}", r(B64, 32) + "=="),
    ("Authorization: Bearer {s}", _mixed(40)),
    ("DefaultEndpointsProtocol=https;AccountName=store;AccountKey={s};EndpointSuffix=core.windows.net", r(B64, 86) + "=="),
    ("Endpoint=sb://bus.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={s}", r(B64, 43) + "="),
    ("https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sr=b&sig={s}", r(ALNUM, 40) + "%3D"),
    ("//registry.npmjs.org/:_authToken={s}",
     r(HEX, 8) + "-" + r(HEX, 4) + "-" + r(HEX, 4) + "-" + r(HEX, 4) + "-" + r(HEX, 12)),
    ("callback https://api.example.com/v1/items?access_token={s}", _mixed(32)),
    # -- assignments and statements -----------------------------------------------------
    ("DB_PASSWORD={s}", _mixed(14)),
    ("OPENAI_API_KEY={s}", _mixed(24)),
    ("export GITHUB_TOKEN={s}", _mixed(30)),
    ("SECRET_KEY = '{s}'", "dj" + r(ALNUM, 30)),
    ("client_secret: '{s}'", r(URLSAFE, 24)),
    ('"api_key": "{s}"', r(HEX, 32)),
    ("password: {s}", "hunter2" + r(ALNUM, 3)),
    ("db password={s}", "hunter2-very-secret"),
    ("the password is {s}", "Tr0ub4dor&3"),
    ("The wifi password is now {s}!", "Coffee" + r(string.digits, 4)),
    ("the api key is {s}", _mixed(32)),
    ("REDIS_PASS: {s}", "Rp" + r(ALNUM, 14)),
    ("smtp_password => '{s}'", r(ALNUM, 16)),
    ("auth_token := {s}", _mixed(28)),
    ("SLACK_SIGNING_SECRET={s}", r(HEX, 32)),
    ("passphrase: {s}", "correct-horse-" + r(string.digits, 3)),
    ("login with user bob and password {s}", "correcthorse" + r(string.digits, 2)),
    ("export STRIPE_SECRET_KEY={s}", "sk" + "_live_" + _mixed(30)),
    ("redis password is {s}", "Xy7#" + r(ALNUM, 6)),
])

# Text that mentions credentials, ids and encodings without holding a secret.
BENIGN: list[str] = [
    "token = tokenizer.encode(text)",
    "password = getpass.getpass()",
    "secret = os.environ['APP_SECRET']",
    "api_key = os.getenv('OPENAI_API_KEY')",
    "the password: field is required",
    "token: expired",
    "pwd=$(pwd)",
    "password: ********",
    "password=<your password here>",
    "token: ${GITHUB_TOKEN}",
    "DB_PASSWORD=${DB_PASSWORD}",
    "the password is stored in the vault",
    "the token is valid for one hour",
    "the password is required for admin actions",
    "the password reset flow needs two steps",
    "rotate the api key every 90 days",
    "max_tokens: 4096",
    "max_token = 2048",
    "token_count = len(tokens)",
    "secret_name: prod-db-credentials",
    "password_min_length = 12",
    "SECRET_KEY = settings.SECRET_KEY",
    "we use bearer tokens for the api",
    "Authorization: Bearer <token>",
    "memory 3f2a9c0b1d4e5f6a7b8c9d0e is useful",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "fixed in 3f786850e387550fdab836ed7e6dc881de23001b",
    "the image is data like aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ= in prose",
    "sha256 of the release is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "AKIA is the prefix AWS access keys use",
    "eyJ is how a JWT starts",
    "ghp_ tokens are GitHub personal tokens",
    "sk_live_ keys belong to Stripe live mode",
    "port 8080 and version 1.2.3",
    "https://example.com:8443/path?page=2",
    "ssh deploy@build.example.com",
    "git@github.com:org/repo.git",
    "postgres://localhost:5432/app",
    "postgresql://app@db.internal/billing",
    "connect with mysql -u root -p and type it at the prompt",
    "use curl -u to pass credentials, never in the repo",
    "sshpass -p is discouraged; use keys",
    "the machine learning model needs a password manager",
    "basic auth is disabled on staging",
    "set the AccountKey in the portal, not here",
    "sig= is the SAS signature parameter",
    "_authToken lives in ~/.npmrc",
    "the secret of good tests is small fixtures",
    "Our secret sauce is caching",
    "keyboard shortcuts: ctrl+k opens search",
    "the key insight is that ranking is relevance first",
    "passwords must be at least 12 characters",
    "token bucket rate limiting at 100 req/s",
    "pin: the record stays durable",
    "the pin is optional",
    "version sk-1 of the schema",
    "skip-ci label on the pr",
    "S3 bucket arn:aws:s3:::my-bucket",
    "commit a1b2c3d is the fix",
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64)",
    "the hash is md5 d41d8cd98f00b204e9800998ecf8427e",
    "Content-Type: application/json",
    "password: see 1Password entry 'Prod DB'",
    "api_key: null",
    "token: none",
    "use the PASSWORD env var",
    "Cairn ids look like 9c1e2d3f4a5b6c7d8e9f0a1b",
    "key-value stores like redis",
    "The secret is out: we ship on Monday.",
    "if password == confirm_password:",
    "password sha256 hashes are compared in constant time",
    "the password reset v2 flow",
    "token_type: bearer",
    "grant_type=client_credentials",
]
