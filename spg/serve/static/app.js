// spg serve's page: the Check and Draft tabs, talking to the server's JSON and event-stream API (spg/serve/app.py).
// Reports come from the server as the lint report's HTML body, escaped there; this script only places them.
"use strict";

const $ = (id) => document.getElementById(id);
const LINT_DELAY_MS = 250; // a check after the drafter stops typing this long
const noSuppressions = () => ({ "ignore": [], "accept-terms": [], "per-claim-text": [] });
const state = {
  suppressions: noSuppressions(), // this session's, not yet saved
  claimKeys: {}, // claim number → its key (spg.lint.suppress.claim_key), from the last check
  claimsName: "pasted claims",
  docx: null, // {name, token, text}: the Word document the claims came from, while they are unchanged
  lintSeq: 0, shownSeq: 0, lintTimer: null,
  descriptionName: "draft", draftText: "", draftAbort: null,
};

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

async function errorOf(response) {
  try {
    return (await response.json()).error || `${response.status} ${response.statusText}`;
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

async function post(path, body, signal) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  if (!response.ok) throw new Error(await errorOf(response));
  return response;
}

function saveBlob(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

async function download(path, body) {
  try {
    const response = await post(path, body);
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    saveBlob(await response.blob(), name ? name[1] : "download");
    showMessage("");
  } catch (error) {
    showMessage(error.message);
  }
}

function selectTab(name) {
  for (const tab of ["check", "draft"]) {
    $(`tab-${tab}`).setAttribute("aria-selected", String(tab === name));
    $(tab).hidden = tab !== name;
  }
}

// A link of a report's claim tree, claim count or term map scrolls to its claim in the same report (both tabs show one).
function followTreeLinks(root) {
  root.addEventListener("click", (event) => {
    const link = event.target.closest(".tree a, table.terms a, table.counts a");
    if (!link) return;
    event.preventDefault();
    const target = root.querySelector(`[id="${link.getAttribute("href").slice(1)}"]`);
    if (target) target.scrollIntoView({ block: "start" });
  });
}

// ---- Check

function checkRequest() {
  return { text: $("claims").value, name: state.claimsName, description: $("check-description").value,
           suppressions: state.suppressions };
}

// The check of the Word document the claims came from, while they are as opened: its downloads are the command
// line's for the document (the commented copy; the JSON with each claim's paragraph), not for its text alone.
function documentRequest() {
  return { ...checkRequest(), token: state.docx.token, name: state.docx.name };
}

function sameAsOpened() {
  return state.docx !== null && $("claims").value === state.docx.text;
}

function scheduleLint() {
  clearTimeout(state.lintTimer);
  state.lintTimer = setTimeout(runLint, LINT_DELAY_MS);
}

async function runLint() {
  clearTimeout(state.lintTimer);
  const seq = ++state.lintSeq;
  const request = checkRequest();
  updateDocxButton();
  if (!request.text.trim()) {
    $("check-result").innerHTML = "";
    $("check-status").textContent = "Paste claims to check them.";
    return;
  }
  $("check-status").textContent = "checking…";
  try {
    const data = await (await post("/api/lint", request)).json();
    if (seq < state.shownSeq) return; // a later check already answered
    state.shownSeq = seq;
    state.claimKeys = data.keys;
    for (const entry of state.suppressions["per-claim-text"]) { // its claim's number now, should it have moved
      const now = Object.keys(data.keys).find((num) => data.keys[num] === entry.key);
      if (now) entry.claim = Number(now);
    }
    renderSuppressions();
    $("check-result").innerHTML = data.html;
    addSuppressButtons($("check-result"));
    const s = data.summary;
    $("check-status").textContent =
      `${data.claims} claims: ${s.error} errors, ${s.warning} warnings, ${s.info} info, ${s.suppressed} suppressed`;
    showMessage("");
  } catch (error) {
    if (seq < state.shownSeq) return;
    state.shownSeq = seq;
    $("check-status").textContent = "not checked";
    showMessage(error.message);
  }
}

function addSuppressButtons(root) {
  for (const item of root.querySelectorAll("ol.findings li[data-rule]")) {
    const { rule, claim, term } = item.dataset;
    const add = (label, title, action) => {
      const button = document.createElement("button");
      button.className = "suppress";
      button.textContent = label;
      button.title = title;
      button.dataset.action = action;
      item.append(button);
    };
    if (claim) add("suppress", `ignore ${rule} in claim ${claim}`, "claim");
    else add("suppress", `ignore ${rule} in every claim`, "rule");
    if (term) add("accept term", `accept "${term}" wherever it is checked`, "term");
  }
}

function suppress(item, action) {
  const { rule, claim, term } = item.dataset;
  const s = state.suppressions;
  if (action === "claim") { // keyed by the claim's words, so it stays on this claim when claims are renumbered
    const key = state.claimKeys[claim];
    let entry = s["per-claim-text"].find((e) => e.key === key);
    if (!entry) s["per-claim-text"].push(entry = { claim: Number(claim), key, rules: [] });
    if (!entry.rules.includes(rule)) entry.rules.push(rule);
  } else if (action === "rule") {
    if (!s.ignore.includes(rule)) s.ignore.push(rule);
  } else if (!s["accept-terms"].includes(term)) {
    s["accept-terms"].push(term);
  }
  renderSuppressions();
  runLint();
}

function renderSuppressions() {
  const s = state.suppressions;
  const entries = [
    ...s.ignore.map((rule) => [`${rule} in every claim`, () => s.ignore.splice(s.ignore.indexOf(rule), 1)]),
    ...s["accept-terms"].map((term) => [`term “${term}”`,
      () => s["accept-terms"].splice(s["accept-terms"].indexOf(term), 1)]),
    ...s["per-claim-text"].flatMap((entry) => entry.rules.map((rule) => [`${rule} in claim ${entry.claim}`,
      () => {
        entry.rules.splice(entry.rules.indexOf(rule), 1);
        if (!entry.rules.length) s["per-claim-text"].splice(s["per-claim-text"].indexOf(entry), 1);
      }])),
  ];
  const list = $("suppression-list");
  list.replaceChildren(...entries.map(([label, remove]) => {
    const item = document.createElement("li");
    item.textContent = label;
    const button = document.createElement("button");
    button.textContent = "×";
    button.title = "report it again";
    button.addEventListener("click", () => { remove(); renderSuppressions(); runLint(); });
    item.append(button);
    return item;
  }));
  $("suppression-count").textContent = entries.length ? `${entries.length} (not saved)` : "none";
  $("save-suppressions").disabled = !entries.length;
}

async function saveSuppressions() {
  try {
    const data = await (await post("/api/suppressions", { suppressions: state.suppressions })).json();
    state.suppressions = noSuppressions(); // in the file now
    renderSuppressions();
    showMessage("");
    $("check-status").textContent = `suppressions saved to ${data.path}`;
    runLint();
  } catch (error) {
    showMessage(error.message);
  }
}

async function upload(file, kind) {
  const response = await fetch(`/api/upload?kind=${kind}&name=${encodeURIComponent(file.name)}`, {
    method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: file,
  });
  if (!response.ok) throw new Error(await errorOf(response));
  return response.json();
}

// A file the server read (its text comes back); on bad input the message shows and what the page held stays.
async function openFile(input, kind, use) {
  const file = input.files[0];
  if (!file) return;
  try {
    await use(file, await upload(file, kind));
    $(`${kind}-source`).textContent = `from ${file.name}`;
    showMessage("");
  } catch (error) {
    showMessage(error.message);
  } finally {
    input.value = "";
  }
}

async function useClaimsFile(file, data) {
  // the server keeps the document a while: its commented copy is asked for by this token, not sent back
  state.docx = data.docx ? { name: file.name, token: data.token, text: data.text } : null;
  $("claims").value = data.text;
  state.claimsName = file.name;
  if (data.description && !$("check-description").value.trim()) {
    $("check-description").value = data.description;
    $("description-box").open = true;
  }
  runLint();
}

function updateDocxButton() {
  const button = $("download-docx");
  const same = sameAsOpened();
  button.disabled = !same;
  button.title = same ? `${state.docx.name} with each finding as a Word comment`
    : state.docx ? "the claims changed since the .docx was opened: download the report instead"
      : "open a .docx to get it back with the findings as comments";
}

// ---- Draft

async function* serverEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      yield [name, JSON.parse(data)];
    }
  }
}

function setDrafting(running) {
  $("draft-button").disabled = running;
  $("draft-stop").hidden = !running;
  for (const id of ["draft-txt", "draft-docx", "draft-to-check"]) $(id).disabled = running || !state.draftText;
}

function onDraftEvent(name, data) {
  const status = $("draft-status");
  if (name === "queued") {
    status.textContent = data.ahead ? `waiting: ${data.ahead} draft(s) before this one` : "starting…";
  } else if (name === "loading") {
    status.textContent = `loading the model ${data.model} (the first draft only)…`;
  } else if (name === "started") {
    status.textContent = `drafting with ${data.model}…`;
  } else if (name === "claim") {
    const before = $("draft-result").querySelectorAll(".claim").length;
    $("draft-result").innerHTML = data.html;
    $("draft-result").querySelectorAll(".claim").forEach((block, i) => { if (i >= before) block.classList.add("new"); });
    status.textContent = `drafting… ${data.claims} claim(s) so far, ${data.seconds.toFixed(1)} s`;
  } else if (name === "done") {
    $("draft-result").innerHTML = data.html;
    state.draftText = data.claims_text;
    const first = data.first_claim_seconds === null ? "" : `; first claim after ${data.first_claim_seconds.toFixed(1)} s`;
    const cut = data.cut_by_budget ? "; the token budget ended the last claim, left out" : "";
    status.textContent =
      `done: ${data.forest.length} claims, ${data.new_tokens} tokens in ${data.seconds.toFixed(1)} s${first}${cut}`;
  } else if (name === "error") {
    status.textContent = "stopped";
    showMessage(data.message);
  }
}

async function draft() {
  const description = $("description").value;
  if (!description.trim()) {
    showMessage("Paste or open a description first.");
    return;
  }
  state.draftAbort = new AbortController();
  state.draftText = "";
  $("draft-result").innerHTML = "";
  $("draft-status").textContent = "sending…";
  showMessage("");
  setDrafting(true);
  try {
    const response = await post("/api/draft", { description, name: state.descriptionName },
                                state.draftAbort.signal);
    for await (const [name, data] of serverEvents(response)) onDraftEvent(name, data);
  } catch (error) {
    if (error.name === "AbortError") $("draft-status").textContent = "stopped";
    else showMessage(error.message);
  } finally {
    state.draftAbort = null;
    setDrafting(false);
  }
}

function useDescriptionFile(file, data) {
  $("description").value = data.text;
  state.descriptionName = file.name.replace(/\.[^.]*$/, "") || "draft";
}

// The editor's claims renumbered by the server (spg renumber's rules); a cycle or a missing claim is shown instead.
async function renumberClaims() {
  try {
    const data = await (await post("/api/renumber", checkRequest())).json();
    $("claims").value = data.text;
    showMessage("");
    runLint();
  } catch (error) {
    showMessage(error.message);
  }
}

// ---- wiring

async function start() {
  $("tab-check").addEventListener("click", () => selectTab("check"));
  $("tab-draft").addEventListener("click", () => {
    selectTab("draft");
    fetch("/api/warm", { method: "POST" }).catch(() => {}); // the drafter imports its libraries while you paste
  });
  $("claims").addEventListener("input", scheduleLint);
  $("check-description").addEventListener("input", scheduleLint);
  $("claims-file").addEventListener("change", (e) => openFile(e.target, "claims", useClaimsFile));
  $("check-result").addEventListener("click", (event) => {
    const button = event.target.closest("button.suppress");
    if (button) suppress(button.closest("li"), button.dataset.action);
  });
  followTreeLinks($("check-result"));
  followTreeLinks($("draft-result"));
  $("download-html").addEventListener("click", () => download("/api/report.html", checkRequest()));
  $("download-json").addEventListener("click", () => download("/api/report.json",
    sameAsOpened() ? documentRequest() : checkRequest()));
  $("download-docx").addEventListener("click", () => download("/api/commented.docx", documentRequest()));
  $("save-suppressions").addEventListener("click", saveSuppressions);
  $("renumber").addEventListener("click", renumberClaims);
  $("description-file").addEventListener("change", (e) => openFile(e.target, "description", useDescriptionFile));
  $("draft-button").addEventListener("click", draft);
  $("draft-stop").addEventListener("click", () => state.draftAbort && state.draftAbort.abort());
  $("draft-txt").addEventListener("click", () =>
    saveBlob(new Blob([state.draftText], { type: "text/plain" }), `${state.descriptionName}.claims.txt`));
  $("draft-docx").addEventListener("click", () => download("/api/claims.docx", { text: state.draftText }));
  $("draft-to-check").addEventListener("click", () => {
    $("claims").value = state.draftText;
    state.claimsName = `${state.descriptionName} (drafted)`;
    state.docx = null;
    if (!$("check-description").value.trim()) $("check-description").value = $("description").value;
    selectTab("check");
    runLint();
  });
  renderSuppressions();
  try {
    const info = await (await fetch("/api/info")).json();
    $("suppression-file").textContent = info.suppression_file;
    $("server-info").textContent = `model: ${info.model} · suppressions: ${info.suppression_file}`;
  } catch (error) {
    showMessage(`the server did not answer (${error.message})`);
  }
  if ($("claims").value.trim()) runLint(); // a reload keeps the text
}

start();
