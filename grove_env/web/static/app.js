// The page: set-up forms, the table drawn from the server's JSON view, keyboard keys.
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

function drawSuspect(suspect, culprit, view) {
  const badges = el("div", { class: "badges" });
  // The unseen marker is public: the first player did not look here. Others may have.
  const by = view.seat === view.first_player && state.mode === "play" ? "YOU" : `P${view.first_player}`;
  if (suspect.unseen) badges.append(el("span", { class: "badge unseen", title: "the first player left this suspect unseen" }, `UNSEEN BY ${by}`));
  if (suspect.tampered) badges.append(el("span", { class: "badge tampered" }, "TAMPERED"));
  if (culprit) badges.append(el("span", { class: "badge culprit" }, "CULPRIT"));
  const stack = el("ol", { class: "stack", "aria-label": `stack on suspect ${suspect.slot}, top first` },
    ...suspect.stack.map((seat, k) => marker(seat, k === suspect.stack.length - 1)).reverse());
  const label = suspect.stack.length ? "stack, top first:" : "no markers";
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

// A score change in words: fewer markers counted is better.
function scoreChange(change) {
  if (!change) return "";
  if (change.score === 0) return "±0, same";
  return `${change.score > 0 ? "+" : "−"}${Math.abs(change.score)}, ${change.score < 0 ? "better" : "worse"}`;
}

// The seats' counts: now, or (``r``, a finished round) as that round left them; under
// each score its change in the last finished round.
function drawSeats(view, r) {
  const last = r || view.rounds[view.rounds.length - 1];
  $("#seats-caption").textContent = `${r ? `Seats after round ${r.round}` : "Seats"} (score: fewer is better)`;
  $("#seats tbody").replaceChildren(...view.seats.map((s) => {
    const turn = !r && !view.over && view.to_act === s.seat;
    const first = r ? r.first_player : view.first_player;
    const notes = [turn ? "▶ to act" : "", first === s.seat ? "first player" : ""].filter(Boolean);
    const [coloured, penalty, score] = r ? [r.coloured[s.seat], r.penalty[s.seat], r.scores[s.seat]] : [s.coloured, s.penalty, s.score];
    return el("tr", { class: turn ? "to-act" : "", "data-seat": String(s.seat) },
      el("td", { class: "player" }, el("span", { class: `marker p${s.seat}` }, `P${s.seat}`), ` ${seatLabel(view, s.seat)}`,
        el("small", { class: "notes" }, notes.join(", "))),
      el("td", { class: "coloured" }, chips(coloured, "coloured", s.seat)),
      el("td", { class: "penalty" }, chips(penalty, "penalty", s.seat)),
      el("td", { class: "score" }, el("span", { class: "count" }, String(score)),
        el("small", { class: "change" }, last ? scoreChange(last.changes[s.seat]) : "")));
  }));
}

function describeRound(r) {
  const tiles = r.suspects.map((t, k) => `${k}: ${t}`).join(", ");
  const flows = r.penalty_flows.map(([slot, to, count]) => `suspect ${slot}'s ${count} marker(s) to P${to} as penalty`);
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

const ordinal = (k) => `${k}${["th", "st", "nd", "rd"][(k % 100 > 10 && k % 100 < 14) || k % 10 > 3 ? 0 : k % 10]}`;

// "You finished 2nd of 4 (tied with P1)", for the seat whose view this is.
function placeWords(view) {
  if (view.seat === null) return "";
  const rank = view.standings[view.seat];
  const tied = view.seats.map((s) => s.seat).filter((s) => s !== view.seat && view.standings[s] === rank);
  const who = state.mode === "play" ? "You" : `P${view.seat}`;
  const ties = tied.length ? ` (tied with ${tied.map((s) => `P${s}`).join(", ")})` : "";
  return `${who} finished ${ordinal(rank)} of ${view.num_players}${ties}.`;
}

function drawResult(view) {
  $("#result").hidden = !view.over;
  if (!view.over) return;
  $("#place").textContent = placeWords(view);
  $("#play-again").hidden = state.mode !== "play";
  $("#end-reason").textContent = view.truncated ? "The game was cut off at the round limit." : view.end_reason;
  const order = view.seats.map((s) => s.seat).sort((a, b) => view.standings[a] - view.standings[b] || a - b);
  $("#standings tbody").replaceChildren(...order.map((seat) => el("tr", { "data-seat": String(seat), "data-rank": String(view.standings[seat]) },
    el("td", { class: "rank" }, String(view.standings[seat])), el("td", {}, `P${seat}`),
    el("td", {}, seatLabel(view, seat)), el("td", {}, String(view.seats[seat].score)))));
}

// A person's round that just ended is held on screen (its stacks, the culprit, who took
// what) until they go on; then the view is drawn whole.
function drawRoundResult(view, r) {
  $("#round-result").hidden = false;
  $("#table").hidden = true;
  $("#actions").hidden = true;
  $("#hints").hidden = true;
  $("#result").hidden = true;
  $("#status").textContent = `Round ${r.round} is over. Look at what happened, then go on.`;
  $("#round-title").textContent = `Round ${r.round}: suspect ${r.culprit} (${r.suspects[r.culprit]}) was the culprit`;
  const who = { seat: view.seat, first_player: r.first_player };
  $("#round-stacks").replaceChildren(...[0, 1, 2].map((slot) => drawSuspect({
    slot, tile: r.suspects[slot], unseen: r.unseen_slot === slot, tampered: r.tampered_slot === slot, stack: r.stacks[slot],
  }, slot === r.culprit, who)));
  const lines = [];
  const under = r.stacks[r.culprit];
  const fate = r.removed.some((k) => k > 0) ? "leave the game" : "go back to their owners";
  lines.push(under.length ? `The markers under the culprit (${under.map((s) => `P${s}`).join(", ")}) ${fate}.` : "Nobody accused the culprit.");
  for (const [slot, to, count] of r.penalty_flows) {
    lines.push(`Suspect ${slot} was innocent: its ${count} marker(s) go to P${to}, whose marker was on top, as penalty.`);
  }
  r.changes.forEach((c, s) => {
    const parts = [];
    if (c.penalty) parts.push(`${c.penalty > 0 ? "+" : "−"}${Math.abs(c.penalty)} penalty`);
    if (c.coloured) parts.push(`${c.coloured > 0 ? "+" : "−"}${Math.abs(c.coloured)} coloured`);
    const counts = parts.length ? parts.join(", ") : "no markers changed";
    lines.push(`${whoName(view, s)}: ${counts}; score ${r.scores[s]} (${scoreChange(c)}).`);
  });
  $("#round-lines").replaceChildren(...lines.map((line) => el("li", {}, line)));
  drawSeats(view, r);
  $("#moves").replaceChildren();
  $("#last-move").textContent = "";
  $("#last-round").textContent = describeRound(r);
  $("#continue-button").replaceChildren(view.over ? "Final standings " : "Next round ", el("kbd", {}, "Enter"));
  $("#board").dataset.draws = String(++state.draws);  // tests wait on this
  $("#continue-button").focus();
}

function goOn() {
  if ($("#round-result").hidden || !state.view) return;
  draw(state.view);
}

async function drawHints(view) {
  const box = $("#hints");
  const wanted = state.mode === "play" && $("#hints-on").checked && view.legal.length > 0;
  box.hidden = !wanted;
  if (!wanted) return;
  const draw = state.draws;
  const hints = await api("GET", `/api/play/${state.id}/hints`);
  if (draw !== state.draws) return;  // a newer view is on screen
  $("#hints-note").textContent = hints.note;
  $("#hints-table thead").replaceChildren(el("tr", {}, el("th", {}, "move"), el("th", {}, hints.unit),
    ...hints.policies.map((spec) => el("th", { class: "policy" }, `chance ${spec} plays it`))));
  $("#hints-table tbody").replaceChildren(...hints.moves.map((m) => {
    const best = m.action === hints.recommended;
    return el("tr", { "data-action": String(m.action), class: best ? "recommended" : "" },
      el("td", {}, best ? `★ ${m.name} (recommended)` : m.name),
      el("td", { class: "penalty" }, m.penalty === null ? "– (alike)" : m.penalty.toFixed(2)),
      ...hints.policies.map((spec) => el("td", { class: "policy" }, `${Math.round(100 * m.policies[spec])}%`)));
  }));
  box.dataset.draw = String(draw);
}

function draw(view) {
  state.view = view;
  $("#board").hidden = false;
  $("#controls").hidden = false;
  if (state.mode === "play" && view.rounds.length > state.roundsShown) {
    state.roundsShown = view.rounds.length;
    drawRoundResult(view, view.rounds[view.rounds.length - 1]);
    return;
  }
  $("#round-result").hidden = true;
  $("#table").hidden = false;
  $("#actions").hidden = false;
  drawStatus(view);
  const last = view.rounds.length ? view.rounds[view.rounds.length - 1] : null;
  // Once the game is over its last round's suspects are revealed to everyone.
  const revealed = view.over && last && last.round === view.round;
  const suspects = view.suspects.map((s) => (revealed ? { ...s, tile: last.suspects[s.slot] } : s));
  $("#suspects").replaceChildren(...suspects.map((s) => drawSuspect(s, revealed && s.slot === last.culprit, view)));
  drawSide(view);
  drawSeats(view);
  drawActions(view);
  $("#moves").replaceChildren(...view.moves.map((m) => el("li", {}, m)));
  $("#last-round").textContent = last ? describeRound(last) : "none yet";
  const move = view.last_move;
  $("#last-move").textContent = move ? `Last move: P${move.seat}: ${move.name}` : "Last move: none yet";
  if (view.step !== undefined) {
    $("#step").textContent = String(view.step);
    $("#replay-slider").value = String(view.step);
  }
  drawResult(view);
  $("#board").dataset.draws = String(++state.draws);  // tests wait on this
  const first = $("#actions button");
  if (first && state.mode === "play") first.focus();
  drawHints(view).catch(showError);
}

function fillViewSelect(n) {
  const values = ["table", ...[...Array(n).keys()].map(String)];
  const select = $("#view-select");
  select.replaceChildren(...values.map((v) => el("option", { value: v }, v === "table" ? "whole table" : `seat P${v}`)));
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
