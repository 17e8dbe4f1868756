// the game table: the server keeps the game and sends only this player's view (RULES §8)
"use strict";
const params = new URLSearchParams(location.search);
const DELAY = params.has("delay") ? Number(params.get("delay")) : 700;  // ms between the opponent's moves
let gameId = null, busy = false, version = 0;
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function init() {
  const { data } = await api("GET", "/api/config");
  for (const v of data.variants) $("variant").append(el("option", { value: v, text: v }));
  for (const a of data.agents.concat(data.checkpoints)) $("agent-names").append(el("option", { value: a }));
  $("variant").value = params.get("variant") || data.variant;
  $("opponent").value = params.get("opponent") || data.opponent;
  if (params.has("seed")) $("seed").value = params.get("seed");
  $("setup").addEventListener("submit", (ev) => { ev.preventDefault(); newGame(); });
  await newGame();  // the table is ready to play with the defaults
}

function setBusy(b) { busy = b; document.body.dataset.state = b ? "busy" : document.body.dataset.state; }

async function newGame() {
  showError($("error"), "");
  const body = { opponent: $("opponent").value, variant: $("variant").value, seat: Number($("seat").value) };
  if ($("seed").value.trim() !== "") body.seed = $("seed").value.trim();
  setBusy(true);
  $("status").textContent = "Dealing...";
  const r = await api("POST", "/api/games", body);
  if (!r.ok) { busy = false; document.body.dataset.state = "setup"; showError($("error"), r.data.message); $("status").textContent = ""; return; }
  gameId = r.data.game_id;
  $("log").replaceChildren();
  await playSteps(r.data.steps);
}

async function send(action) {
  if (busy || !gameId) return;
  setBusy(true);
  const r = await api("POST", `/api/games/${gameId}/action`, { action });
  if (!r.ok) { showError($("error"), r.data.message); busy = false; document.body.dataset.state = "play"; return; }
  showError($("error"), "");
  await playSteps(r.data.steps);
}

async function nextGame() {
  if (busy) return;
  setBusy(true);
  const r = await api("POST", `/api/games/${gameId}/next`);
  if (!r.ok) { showError($("error"), r.data.message); busy = false; return; }
  $("log").replaceChildren();
  await playSteps(r.data.steps);
}

// show the views one by one: the player's move, then each of the opponent's
async function playSteps(steps) {
  for (let i = 0; i < steps.length; i++) {
    const v = steps[i];
    render(v, i < steps.length - 1);
    if (v.last) logMove(v, v.last);
    if (i < steps.length - 1 && DELAY > 0) await sleep(steps[i + 1].last && steps[i + 1].last.player !== v.seat ? DELAY : 0);
  }
  busy = false;
  const v = steps[steps.length - 1];
  document.body.dataset.state = v.outcome ? "over" : "play";
  document.body.dataset.version = ++version;  // one more answer of the server shown (for tests)
}

function logMove(v, a) {
  const mine = a.player === v.seat;
  $("log").append(el("li", { class: mine ? "you" : "opp", text: `${mine ? "You" : "Opponent"}: ${a.label}` }));
  $("log").scrollTop = $("log").scrollHeight;
}

function render(v, more) {
  $("game").classList.remove("hidden");
  $("opp-name").textContent = v.opponent;
  $("variant-name").textContent = v.variant + (v.seed !== undefined ? `, seed ${v.seed}` : "");
  // opponent: face-down cards, the ones they showed face up
  const opp = [];
  for (const c of v.opponent_known) opp.push(cardEl(c, { cls: "small" }));
  for (let i = v.opponent_known.length; i < v.opponent_hand_size; i++) opp.push(backEl("small"));
  $("opp-hand").replaceChildren(...opp);
  $("opp-hand").style.display = "flex"; $("opp-hand").style.gap = ".3em";
  // talon and trump card
  const talon = [];
  if (v.talon_size > 0) talon.push(backEl());
  if (v.trump_card) talon.push(v.closed_by >= 0 ? backEl("trump-card") : cardEl(v.trump_card, { cls: "trump-card" }));
  $("talon").replaceChildren(...talon);
  $("talon").style.display = "flex";
  $("talon-size").textContent = v.closed_by >= 0 ? `closed by ${v.closed_by === v.seat ? "you" : "the opponent"}`
    : (v.talon_size ? `${v.talon_size} face-down card${v.talon_size > 1 ? "s" : ""}` : "exhausted");
  $("trump").textContent = `${v.trump_suit.symbol} ${v.trump_suit.name}`;
  // trick in progress
  $("trick").replaceChildren(...(v.lead ? [cardEl(v.lead)] : []));
  $("trick-note").textContent = v.lead ? `${v.leader === v.seat ? "you" : "opponent"} led`
    : (v.pending_marriage ? `marriage in ${v.pending_marriage} announced` : "");
  if (v.last_trick) {
    $("last-trick").replaceChildren(cardEl(v.last_trick.lead, { cls: "small" }), cardEl(v.last_trick.follow, { cls: "small" }));
    $("last-trick-note").textContent = `won by ${v.last_trick.winner === v.seat ? "you" : "the opponent"}`;
  } else { $("last-trick").replaceChildren(); $("last-trick-note").textContent = ""; }
  // my hand: only legal cards clickable
  const legal = new Map(v.legal.map((a) => [a.id, a]));
  const hand = v.hand.map((c) => {
    const b = cardEl(c, { button: true, cls: legal.has(c.id) && !more ? "legal" : "" });
    b.dataset.action = c.id;
    b.disabled = !(legal.has(c.id) && !more);
    b.addEventListener("click", () => send(c.id));
    return b;
  });
  $("hand").replaceChildren(...hand);
  const other = v.legal.filter((a) => !a.text.startsWith("play ") && !more).map((a) =>
    el("button", { class: "action", "data-action": a.id, text: a.text === "declare" ? "declare 66" : a.label,
                   onclick: () => send(a.id) }));
  $("actions").replaceChildren(...other);
  // score board
  if (v.eyes) {
    $("eyes-you").textContent = v.eyes[v.seat]; $("eyes-opp").textContent = v.eyes[1 - v.seat];
    const held = v.held_marriage_eyes;
    $("eyes-note").textContent = held && (held[0] || held[1]) ? `announced, credited with the first trick: you ${held[v.seat]}, opponent ${held[1 - v.seat]}` : "";
  } else {
    $("eyes-you").textContent = "hidden"; $("eyes-opp").textContent = "hidden";
    $("eyes-note").textContent = "These rules hide the eyes: count them yourself.";
  }
  $("tricks-you").textContent = v.tricks_won[v.seat]; $("tricks-opp").textContent = v.tricks_won[1 - v.seat];
  $("score-you").textContent = v.bummerl.scores[v.seat]; $("score-opp").textContent = v.bummerl.scores[1 - v.seat];
  $("target").textContent = v.bummerl.target; $("game-number").textContent = v.game_number;
  $("status").textContent = v.outcome ? "Game over." : more ? "The opponent is playing..." : v.current_player === v.seat ? "Your move." : "The opponent is playing...";
  renderResult(v);
}

function renderResult(v) {
  const box = $("result");
  if (!v.outcome) { box.classList.add("hidden"); box.replaceChildren(); return; }
  const o = v.outcome, you = v.seat, opp = 1 - v.seat;
  box.className = "result" + (o.winner === you ? " won" : "");
  const parts = [
    el("h2", { id: "result-headline", text: `${o.winner === you ? "You win" : "The opponent wins"} ${o.game_points} game point` +
      `${o.game_points > 1 ? "s" : ""} (${o.reason_text})` }),
    el("p", { id: "result-explanation", text: o.explanation }),
    el("p", { id: "result-details", "data-winner": o.winner, "data-points": o.game_points, "data-reason": o.reason,
              text: `Eyes: you ${o.eyes[you]}, opponent ${o.eyes[opp]}. Tricks: you ${o.tricks[you]}, opponent ${o.tricks[opp]}.` }),
  ];
  const b = v.bummerl;
  if (b.winner !== null) {
    parts.push(el("p", { id: "bummerl-result", text: `${b.winner === you ? "You win" : "The opponent wins"} the Bummerl ${b.scores[you]} : ${b.scores[opp]}` +
      (b.value === 2 ? " (Schneider-Bummerl, counts double)." : ".") }));
    parts.push(el("button", { id: "new-bummerl", text: "New Bummerl", onclick: () => newGame() }));
  } else {
    parts.push(el("p", { text: `Bummerl: you ${b.scores[you]} : ${b.scores[opp]} opponent (first to ${b.target}).` }));
    parts.push(el("button", { id: "next-game", text: "Next game", onclick: () => nextGame() }));
  }
  box.replaceChildren(...parts);
}

init();
