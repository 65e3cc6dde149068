// The board: the table, the seats, a held round result, the hints and the final standings,
// drawn from the server's JSON view (app.js holds the state, the API and the modes).
// Every text goes in through textContent (never innerHTML): records may come from anyone.
"use strict";

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
