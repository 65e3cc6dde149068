// The page: set-up forms, the table drawn from the server's JSON view, keyboard keys.
// Every text goes in through textContent (never innerHTML): records may come from anyone.
"use strict";

const state = { mode: "play", id: null, view: null, options: null, timer: null, steps: 0, draws: 0 };
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
    fillSelect(select, state.options.agents, old[k] || state.options.default_agent);
    return el("label", {}, `P${seat}`, select);
  }));
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

// ------------------------------------------------------------------ drawing the table
const tileWord = (tile) => (tile === null ? "?" : tile);

function drawTile(tile) {
  const hidden = tile === null;
  const word = !hidden && tile.length > 1;
  return el("div", { class: `tile${hidden ? " hidden" : ""}${word ? " word" : ""}` }, tileWord(tile));
}

function marker(seat, top) {
  return el("li", {}, el("span", { class: `marker p${seat}${top ? " top" : ""}` }, `P${seat}${top ? " top" : ""}`));
}

function drawSuspect(suspect, culprit) {
  const badges = el("div", { class: "badges" });
  if (suspect.unseen) badges.append(el("span", { class: "badge unseen" }, "UNSEEN"));
  if (suspect.tampered) badges.append(el("span", { class: "badge tampered" }, "TAMPERED"));
  if (culprit) badges.append(el("span", { class: "badge culprit" }, "CULPRIT"));
  const stack = el("ol", { class: "stack", "aria-label": `stack on suspect ${suspect.slot}, bottom to top` },
    ...suspect.stack.map((seat, k) => marker(seat, k === suspect.stack.length - 1)));
  const label = suspect.stack.length ? "stack, bottom to top:" : "no markers";
  return el("div", { class: `card${culprit ? " culprit" : ""}`, "data-slot": String(suspect.slot) },
    el("h3", {}, `Suspect ${suspect.slot}`), drawTile(suspect.tile), badges,
    el("span", { class: "stack-label" }, label), stack);
}

// The seat whose view is shown is "you" when a person plays it, else named as it is.
function seatLabel(view, seat) {
  const label = view.seats[seat].label;
  if (view.seat !== seat) return label;
  return state.mode === "play" ? "you" : `${label} (this view)`;
}

const whoName = (view, seat) => `P${seat} (${seatLabel(view, seat)})`;

function drawStatus(view) {
  const head = `${view.rules}, ${view.num_players} players · round ${view.round} · first player P${view.first_player}`;
  let turn = "game over";
  if (view.truncated) turn = "game cut off at the round limit";
  else if (!view.over) turn = `${whoName(view, view.to_act)} to ${view.phase}`;
  $("#status").replaceChildren(head + " · ", el("span", { class: "turn" }, turn));
}

function drawSide(view) {
  $("#victim").replaceChildren(el("h3", {}, "Victim"), drawTile(view.victim));
  $("#spare").hidden = view.spare === null;
  $("#spare").replaceChildren(el("h3", {}, "Face-up spare"), drawTile(view.spare));
  const mine = $("#mine");
  mine.replaceChildren();
  if (view.kind === "seat") {
    mine.append(el("div", { class: "card small" }, el("h3", {}, "Your tile"), drawTile(view.my_tiles[0])),
      el("div", { class: "card small" }, el("h3", {}, "Passed to you"), drawTile(view.my_tiles[1])));
  } else {
    mine.append(el("div", { class: "card small" }, el("h3", {}, "Dealt tiles"),
      el("ul", { class: "dealt" }, ...view.dealt.map((t, s) => el("li", {}, `P${s}: ${t}`)))));
  }
}

function chips(count, kind, seat) {
  const chipClass = kind === "penalty" ? "chip penalty" : `chip p${seat}`;
  return el("span", { "aria-label": `${count} ${kind}` }, ...Array.from({ length: count }, () => el("span", { class: chipClass })), ` ${count}`);
}

function drawSeats(view) {
  $("#seats tbody").replaceChildren(...view.seats.map((s) => {
    const turn = !view.over && view.to_act === s.seat;
    const notes = [turn ? "▶ to act" : "", view.first_player === s.seat ? "first player" : ""].filter(Boolean);
    return el("tr", { class: turn ? "to-act" : "", "data-seat": String(s.seat) },
      el("td", {}, el("span", { class: `marker p${s.seat}` }, `P${s.seat}`)),
      el("td", {}, seatLabel(view, s.seat)),
      el("td", { class: "coloured" }, chips(s.coloured, "coloured", s.seat)),
      el("td", { class: "penalty" }, chips(s.penalty, "penalty", s.seat)),
      el("td", { class: "score" }, String(s.score)), el("td", {}, notes.join(", ")));
  }));
}

function describeRound(r) {
  const tiles = r.suspects.map((t, k) => `${k}: ${t}`).join(", ");
  const flows = r.penalty_flows.map(([slot, to, count]) => `slot ${slot}'s ${count} marker(s) to P${to} as penalty`);
  return `Round ${r.round}: suspects ${tiles}; culprit suspect ${r.culprit}` + (flows.length ? `; ${flows.join("; ")}` : "; no penalty");
}

function drawActions(view) {
  const box = $("#actions");
  box.replaceChildren(...view.legal.map((move, k) => el("button", {
    type: "button", class: "move", "data-action": String(move.action), title: move.explain,
  }, el("kbd", {}, String(k + 1)), el("strong", {}, move.name), el("small", {}, move.explain))));
  for (const button of box.querySelectorAll("button")) {
    button.addEventListener("click", () => playMove(Number(button.dataset.action)));
  }
}

function drawResult(view) {
  $("#result").hidden = !view.over;
  if (!view.over) return;
  const order = view.seats.map((s) => s.seat).sort((a, b) => view.standings[a] - view.standings[b] || a - b);
  $("#standings tbody").replaceChildren(...order.map((seat) => el("tr", { "data-seat": String(seat), "data-rank": String(view.standings[seat]) },
    el("td", { class: "rank" }, String(view.standings[seat])), el("td", {}, `P${seat}`),
    el("td", {}, seatLabel(view, seat)), el("td", {}, String(view.seats[seat].score)))));
}

function draw(view) {
  state.view = view;
  $("#board").hidden = false;
  $("#controls").hidden = false;
  drawStatus(view);
  const last = view.rounds.length ? view.rounds[view.rounds.length - 1] : null;
  // Once the game is over its last round's suspects are revealed to everyone.
  const revealed = view.over && last && last.round === view.round;
  const suspects = view.suspects.map((s) => (revealed ? { ...s, tile: last.suspects[s.slot] } : s));
  $("#suspects").replaceChildren(...suspects.map((s) => drawSuspect(s, revealed && s.slot === last.culprit)));
  drawSide(view);
  drawSeats(view);
  drawActions(view);
  $("#moves").replaceChildren(...view.moves.map((m) => el("li", {}, m)));
  $("#last-round").textContent = last ? describeRound(last) : "none yet";
  const move = view.last_move;
  $("#last-move").textContent = move ? `Last move: P${move.seat}: ${move.name}` : "";
  if (view.step !== undefined) {
    $("#step").textContent = String(view.step);
    $("#replay-slider").value = String(view.step);
  }
  drawResult(view);
  $("#board").dataset.draws = String(++state.draws);  // tests wait on this
  const first = $("#actions button");
  if (first && state.mode === "play") first.focus();
}

function fillViewSelect(n) {
  const values = ["table", ...[...Array(n).keys()].map(String)];
  const select = $("#view-select");
  select.replaceChildren(...values.map((v) => el("option", { value: v }, v === "table" ? "whole table" : `seat P${v}`)));
}

// ------------------------------------------------------------------ the three modes
async function startPlay(form) {
  const { id, view } = await api("POST", "/api/play", formRequest(form));
  state.id = id;
  $("#view-select").parentElement.hidden = true;
  $("#watch-controls").hidden = true;
  $("#replay-controls").hidden = true;
  draw(view);
}

async function playMove(action) {
  if (state.mode !== "play" || !state.id) return;
  try {
    draw(await api("POST", `/api/play/${state.id}/act`, { action }));
    showError(null);
  } catch (err) { showError(err); }
}

const viewQuery = () => ($("#view-select").value === "table" ? "" : `?seat=${$("#view-select").value}`);

async function startWatch(form) {
  const request = formRequest(form);
  const { id, view } = await api("POST", "/api/watch", request);
  state.id = id;
  fillViewSelect(request.players);
  $("#view-select").parentElement.hidden = false;
  $("#watch-controls").hidden = false;
  $("#replay-controls").hidden = true;
  $("#record-link").href = `/api/watch/${id}/record`;
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
  const { id, steps, view } = await api("POST", "/api/replay", text);
  state.id = id;
  state.steps = steps;
  fillViewSelect(view.num_players);
  $("#view-select").parentElement.hidden = false;
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

async function refreshView() {
  if (state.mode === "watch" && state.id) draw(await api("GET", `/api/watch/${state.id}${viewQuery()}`));
  if (state.mode === "replay" && state.id) await showStep(state.view.step);
}

// ------------------------------------------------------------------ wiring
const guard = (fn) => (...args) => Promise.resolve(fn(...args)).then(() => showError(null), showError);

function onKey(event) {
  if (event.target.matches("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  if (state.mode === "play" && /^[1-9]$/.test(key)) {
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
