// The page: set-up forms, the three modes, keyboard keys (board.js draws the board).
// Every text goes in through textContent (never innerHTML): records may come from anyone.
"use strict";

const state = {
  mode: "play", id: null, view: null, options: null, timer: null, steps: 0, draws: 0,
  roundsShown: 0, held: null, token: null,
};
const $ = (sel) => document.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (state.token) init.headers.authorization = `Bearer ${state.token}`;
  if (method === "POST") {
    init.headers["content-type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(err) {
  const box = $("#error");
  box.textContent = err ? String(err.message || err) : "";
  box.hidden = !err;
}

// ------------------------------------------------------------------ set-up forms
function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map((v) => el("option", { value: String(v) }, String(v))));
  if (chosen !== undefined && values.map(String).includes(String(chosen))) select.value = String(chosen);
}

function refreshForm(form) {
  const rules = form.querySelector(".rules");
  const players = form.querySelector(".players");
  fillSelect(players, state.options.rules[rules.value], players.value || 4);
  showRules(rules.value, players.value);
  const n = Number(players.value);
  const seatSelect = form.querySelector("#play-seat");
  if (seatSelect) fillSelect(seatSelect, [...Array(n).keys()], seatSelect.value || 0);
  const seats = form.dataset.mode === "play"
    ? [...Array(n).keys()].filter((s) => s !== Number(seatSelect.value)) : [...Array(n).keys()];
  const box = form.querySelector(".agents");
  const legend = box.querySelector("legend");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren(legend, ...seats.map((seat, k) => {
    const select = el("select", { name: "agent", "aria-label": `agent at seat ${seat}` });
    const offered = state.options.tables[rules.value][String(n)];
    fillSelect(select, offered, offered.includes(old[k]) ? old[k] : state.options.default_agent);
    return el("label", {}, `P${seat}`, select);
  }));
}

function showRules(rules, players) {
  const words = state.options.words[rules];
  $("#rules-goal").textContent = words.goal;
  $("#rules-tiles").textContent = words.tiles[players];
  $("#rules-round").replaceChildren(...words.round.map((line) => el("li", {}, line)));
  $("#rules-markers").textContent = words.markers;
  $("#rules-end").textContent = words.end;
  $("#rules-result").textContent = words.result;
}

function formRequest(form) {
  const data = new FormData(form);
  const request = {
    rules: data.get("rules"),
    players: Number(data.get("players")),
    agents: data.getAll("agent"),
    seed: data.get("seed") === "" ? null : Number(data.get("seed")),
  };
  if (form.dataset.mode === "play") request.seat = Number(data.get("seat"));
  return request;
}

function setMode(mode) {
  stopRunning();
  state.mode = mode;
  state.id = null;
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.mode === mode));
  }
  for (const form of document.querySelectorAll("#setup form")) form.hidden = form.dataset.mode !== mode;
  $("#controls").hidden = true;
  $("#board").hidden = true;
  showError(null);
}

// ------------------------------------------------------------------ the three modes
// Once a game starts the rules fold away (its summary opens them again).
function started() {
  $("#rules-panel").open = false;
  showError(null);
}

async function startPlay(form) {
  const { id, view } = await api("POST", "/api/play", formRequest(form));
  state.id = id;
  state.roundsShown = 0;
  started();
  $("#view-select").parentElement.hidden = true;
  $("#hints-toggle").hidden = false;
  $("#watch-controls").hidden = true;
  $("#replay-controls").hidden = true;
  draw(view);
}

async function playMove(action) {
  if (state.mode !== "play" || !state.id) return;
  try {
    draw(await api("POST", `/api/play/${state.id}/act`, { action }));
    showError(null);
  } catch (err) {
    showError(err);  // the game goes on: show it as the server has it now
    draw(await api("GET", `/api/play/${state.id}`));
  }
}

const viewQuery = () => ($("#view-select").value === "table" ? "" : `?seat=${$("#view-select").value}`);

async function startWatch(form) {
  const request = formRequest(form);
  const { id, view } = await api("POST", "/api/watch", request);
  state.id = id;
  started();
  fillViewSelect(request.players);
  $("#view-select").parentElement.hidden = false;
  $("#hints-toggle").hidden = true;
  $("#watch-controls").hidden = false;
  $("#replay-controls").hidden = true;
  draw(view);
}

async function watchStep() {
  if (state.mode !== "watch" || !state.id) return;
  const view = await api("POST", `/api/watch/${state.id}/step${viewQuery()}`);
  draw(view);
  if (view.over) stopRunning();
}

function stopRunning() {
  clearInterval(state.timer);
  state.timer = null;
  $("#run-button").textContent = "Play";
}

function toggleRunning() {
  if (state.timer) return stopRunning();
  state.timer = setInterval(() => watchStep().catch((err) => { stopRunning(); showError(err); }), Number($("#speed").value));
  $("#run-button").textContent = "Pause";
}

async function startReplay(file) {
  const text = await file.text();
  const { id, steps, view } = await api("POST", "/api/replay", text).catch((err) => {
    throw new Error(`${file.name} is not a game record this page can replay (a record is the file that `
      + `"Download record" saves). What is wrong with it: ${err.message}`);
  });
  state.id = id;
  started();
  state.steps = steps;
  fillViewSelect(view.num_players);
  $("#view-select").parentElement.hidden = false;
  $("#hints-toggle").hidden = true;
  $("#watch-controls").hidden = true;
  $("#replay-controls").hidden = false;
  $("#steps").textContent = String(steps);
  $("#replay-slider").max = String(steps);
  draw(view);
  $("#forward-button").focus();
}

async function showStep(step) {
  if (state.mode !== "replay" || !state.id) return;
  const target = Math.max(0, Math.min(state.steps, step));
  draw(await api("GET", `/api/replay/${state.id}/${target}${viewQuery()}`));
}

async function downloadRecord() {
  const record = await api("GET", `/api/${state.mode}/${state.id}/record`);
  const link = el("a", { href: URL.createObjectURL(new Blob([JSON.stringify(record)], { type: "application/json" })), download: "grove-record.json" });
  link.click();
  URL.revokeObjectURL(link.href);
}

async function refreshView() {
  if (state.mode === "watch" && state.id) draw(await api("GET", `/api/watch/${state.id}${viewQuery()}`));
  if (state.mode === "replay" && state.id) await showStep(state.view.step);
}

// ------------------------------------------------------------------ wiring
const guard = (fn) => (...args) => Promise.resolve(fn(...args)).then(() => showError(null), showError);

function onKey(event) {
  if (event.target.matches("input:not([type=checkbox]), select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  if (state.mode === "play" && key === "enter" && !$("#round-result").hidden) {
    event.preventDefault();
    goOn();
  } else if (state.mode === "play" && /^[1-9]$/.test(key)) {
    const button = document.querySelectorAll("#actions button")[Number(key) - 1];
    if (button) { event.preventDefault(); button.click(); }
  } else if (state.mode === "watch" && key === "s") guard(watchStep)();
  else if (state.mode === "watch" && key === "p") toggleRunning();
  else if (state.mode === "replay") {
    const moves = { arrowleft: -1, arrowright: 1, home: -Infinity, end: Infinity };
    if (key in moves) { event.preventDefault(); guard(showStep)((state.view ? state.view.step : 0) + moves[key]); }
  }
}

async function init() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  state.token = fragment.get("token") || sessionStorage.getItem("grove-token");
  if (state.token) sessionStorage.setItem("grove-token", state.token);
  state.options = await api("GET", "/api/options");
  for (const form of document.querySelectorAll("#setup form")) {
    const rules = form.querySelector(".rules");
    if (!rules) continue;
    fillSelect(rules, Object.keys(state.options.rules), "classic");
    form.addEventListener("change", (event) => { if (event.target.name !== "agent") refreshForm(form); });
    refreshForm(form);
  }
  for (const tab of document.querySelectorAll("[role=tab]")) tab.addEventListener("click", () => setMode(tab.dataset.mode));
  $("#form-play").addEventListener("submit", (e) => { e.preventDefault(); guard(startPlay)(e.target); });
  $("#form-watch").addEventListener("submit", (e) => { e.preventDefault(); stopRunning(); guard(startWatch)(e.target); });
  $("#record-file").addEventListener("change", (e) => { if (e.target.files[0]) guard(startReplay)(e.target.files[0]); });
  $("#step-button").addEventListener("click", guard(watchStep));
  $("#record-button").addEventListener("click", guard(downloadRecord));
  $("#continue-button").addEventListener("click", goOn);
  $("#again-button").addEventListener("click", () => guard(startPlay)($("#form-play")));
  $("#play-record-button").addEventListener("click", guard(downloadRecord));
  $("#hints-on").addEventListener("change", () => { if (state.view && $("#round-result").hidden) drawHints(state.view).catch(showError); });
  $("#run-button").addEventListener("click", toggleRunning);
  $("#first-button").addEventListener("click", guard(() => showStep(0)));
  $("#back-button").addEventListener("click", guard(() => showStep(state.view.step - 1)));
  $("#forward-button").addEventListener("click", guard(() => showStep(state.view.step + 1)));
  $("#last-button").addEventListener("click", guard(() => showStep(state.steps)));
  $("#replay-slider").addEventListener("change", (e) => guard(showStep)(Number(e.target.value)));
  $("#view-select").addEventListener("change", guard(refreshView));
  document.addEventListener("keydown", onKey);
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", () => init().catch(showError));
