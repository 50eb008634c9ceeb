// cairn ui: the page's few behaviours, no framework, no build step.
// Every write is a fetch to /api/... with the session's CSRF token; every text that comes
// from the store is put on the page with textContent, never as markup.
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

function say(text, isError) {
  const box = document.getElementById("message");
  if (!box) return;
  box.textContent = text;
  box.className = isError ? "error" : "ok";
  box.setAttribute("role", isError ? "alert" : "status");
}

async function api(method, path, body) {
  const options = { method, headers: { "X-CSRF-Token": csrf() }, credentials: "same-origin" };
  if (method !== "GET") {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body || {});
  }
  const response = await fetch(path, options);
  const doc = await response.json();
  if (!response.ok) throw new Error(doc.error ? doc.error.message : response.statusText);
  return doc;
}

// After a write, reload to show the store as it now is, with a line saying what happened
// (and, for a plan applied, an Undo button for its one event).
function done(text, undoEvent) {
  sessionStorage.setItem("cairn-message", text);
  if (undoEvent) sessionStorage.setItem("cairn-undo", undoEvent);
  location.reload();
}

// A plan page carries the plan it shows; what is applied is that plan, less the rows not selected.
const ENDPOINTS = { maintenance: "/api/maintenance/apply", retention: "/api/retention/apply" };
const ROWS = { maintenance: "ops", retention: "matches" };

function applyPlan(form, { selectedOnly, auto }) {
  const plan = JSON.parse(form.dataset.plan);
  const kind = form.dataset.kind;
  if (selectedOnly) {
    const chosen = new Set([...form.querySelectorAll('input[name="select"]:checked')].map((box) => Number(box.value)));
    if (chosen.size === 0) { say("Select at least one row first (Space ticks the focused box).", true); return; }
    plan[ROWS[kind]] = plan[ROWS[kind]].filter((_, n) => chosen.has(n));
  }
  const body = kind === "maintenance" ? { plan, auto: Boolean(auto) } : { plan };
  return api("POST", ENDPOINTS[kind], body).then((d) => {
    const verb = kind === "maintenance" ? "Applied " + d.applied + " operation(s)" : "Retired " + d.applied + " record(s)";
    const skipped = d.skipped ? ", skipped " + d.skipped + (kind === "retention" ? " changed since the plan" : "") : "";
    if (!d.event) { say("Nothing applied" + skipped + ".", true); return; }
    done(verb + skipped + " in event " + d.event + ".", d.event);
  });
}

const record = (id) => "/api/records/" + encodeURIComponent(id);

const actions = {
  undo: (el) => api("POST", "/api/events/" + encodeURIComponent(el.dataset.event) + "/undo")
    .then((d) => done("Undone by event " + d.event)),
  pin: (el) => api("POST", record(el.dataset.id) + "/pin").then((d) => done("Pinned in event " + d.event)),
  unpin: (el) => api("POST", record(el.dataset.id) + "/unpin").then((d) => done("Unpinned in event " + d.event)),
  forget: (el) => confirm("Forget this record? (undoable from its history)")
    ? api("POST", record(el.dataset.id) + "/forget").then((d) => done("Forgotten in event " + d.event))
    : Promise.resolve(),
  feedback: (el) => api("POST", record(el.dataset.id) + "/feedback", { verdict: el.dataset.verdict })
    .then((d) => done(d.applied ? el.dataset.verdict + " recorded in event " + d.event : "Not applied: " + d.reason)),
  // The conflicted queue: keep confirms the text as the person's own, replace corrects it, dismiss forgets it.
  keep: async (el) => {
    const shown = await api("GET", record(el.dataset.id));
    const d = await api("POST", record(el.dataset.id) + "/correct", { text: shown.memory.content });
    done("Kept " + d.id.slice(0, 10) + " in event " + d.event);
  },
  replace: async (el) => {
    const input = document.querySelector('input[name="replace-' + CSS.escape(el.dataset.id) + '"]');
    const text = input ? input.value.trim() : "";
    if (!text) { say("Type the corrected text first.", true); input?.focus(); return; }
    const d = await api("POST", record(el.dataset.id) + "/correct", { text });
    done("Replaced the text of " + d.id.slice(0, 10) + " in event " + d.event);
  },
  dismiss: (el) => api("POST", record(el.dataset.id) + "/forget").then((d) => done("Dismissed in event " + d.event)),
  "apply-auto": (el) => applyPlan(el.form, { selectedOnly: false, auto: true }),
  "apply-all": (el) => applyPlan(el.form, { selectedOnly: false }),
};

function run(promise) {
  Promise.resolve(promise).catch((err) => say(err.message, true));
}

document.addEventListener("click", (event) => {
  const el = event.target.closest("button[data-action]");
  if (el && actions[el.dataset.action]) run(actions[el.dataset.action](el));
});

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.matches("form[data-action=correct]")) {
    event.preventDefault();
    const text = form.elements.text.value;
    run(api("POST", record(form.dataset.id) + "/correct", { text })
      .then((d) => done("Corrected in event " + d.event + " (undo it from the history below)")));
  } else if (form.matches("form[data-logout]")) {
    event.preventDefault();
    fetch("/logout", { method: "POST", headers: { "X-CSRF-Token": csrf() } }).then(() => location.assign("/login"));
  } else if (form.id === "plan-form") {
    event.preventDefault();
    run(applyPlan(form, { selectedOnly: true }));
  } else if (form.id === "recall-form") {
    event.preventDefault();
    run(recall(form));
  }
});

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
  return td;
}

async function recall(form) {
  const body = { query: form.elements.query.value, include_dormant: form.elements.include_dormant.checked };
  history.replaceState(null, "", "/recall?query=" + encodeURIComponent(body.query));
  const [got, why] = await Promise.all([api("POST", "/api/recall", body), api("POST", "/api/explain", body)]);
  document.getElementById("digest").textContent = got.digest || "(nothing recalled)";
  const list = document.getElementById("results");
  list.replaceChildren();
  for (const r of got.results) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/records/" + encodeURIComponent(r.id);
    a.textContent = r.id.slice(0, 10);
    li.append(a, " " + r.status + " · relevance " + r.relevance.toFixed(3) + " · rank " + r.rank_score.toFixed(3) + " — ");
    const text = document.createElement("span");
    text.textContent = r.content;
    li.appendChild(text);
    list.appendChild(li);
  }
  const tbody = document.querySelector("#explain tbody");
  tbody.replaceChildren();
  for (const c of why.candidates) {
    const row = document.createElement("tr");
    const a = document.createElement("a");
    a.href = "/records/" + encodeURIComponent(c.id);
    a.textContent = c.id.slice(0, 10);
    cell(row, "").appendChild(a);
    cell(row, c.lane);
    cell(row, c.raw.toFixed(3));
    cell(row, c.rank_score === null ? "—" : c.rank_score.toFixed(3));
    cell(row, c.reason);
    tbody.appendChild(row);
  }
  document.getElementById("explain-note").textContent =
    (why.note || "") + (why.omitted ? " (" + why.omitted + " candidates left out)" : "");
  say(got.results.length + " recalled of " + got.candidates + " candidates", false);
}

document.addEventListener("keydown", (event) => {
  // "/" jumps to the search box, as on many sites; not while typing in a field.
  if (event.key === "/" && !event.target.closest("input, textarea, select")) {
    const box = document.querySelector('input[type="search"]');
    if (box) { event.preventDefault(); box.focus(); }
  }
});

document.addEventListener("DOMContentLoaded", () => {
  const text = sessionStorage.getItem("cairn-message");
  const undo = sessionStorage.getItem("cairn-undo");
  sessionStorage.removeItem("cairn-undo");
  if (text) {
    sessionStorage.removeItem("cairn-message");
    say(text, false);
    if (undo) {  // the event just written, one keystroke away from being reverted
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.action = "undo";
      button.dataset.event = undo;
      button.textContent = "Undo";
      document.getElementById("message").append(" ", button);
    }
  }
  const form = document.getElementById("recall-form");
  if (form && form.elements.query.value) run(recall(form));
});
