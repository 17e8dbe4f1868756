// the replay viewer: the server checks the records with schnapsen_env.replay and sends their result lines;
// the frames (one per action) of the record shown are asked for by sending its line alone as a .json
"use strict";
const $ = (id) => document.getElementById(id);
let records = [], texts = [], rec = null, pos = 0;

async function init() {
  const { data } = await api("GET", "/api/config");
  $("replay-file").addEventListener("change", upload);
  $("paste-open").addEventListener("click", () => openText($("paste").value, "pasted.json", "pasted record"));
  $("record-select").addEventListener("change", () => choose(Number($("record-select").value)));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(pos - 1));
  $("next").addEventListener("click", () => go(pos + 1));
  $("last").addEventListener("click", () => go(Infinity));
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") go(pos + 1); else if (e.key === "ArrowLeft") go(pos - 1);
  });
  if (data.replay_file) openText(await (await fetch("/api/replay/file")).text(), data.replay_file, data.replay_file);
}

async function upload() {
  const f = $("replay-file").files[0];
  if (f) openText(await f.text(), f.name, f.name);
}

// a .json file is one record, a .jsonl file one a line (blank lines skipped, as the server does)
async function openText(text, name, source) {
  const r = await api("POST", "/api/replay", { text, name });
  texts = name.toLowerCase().endsWith(".jsonl") ? text.split("\n").filter((l) => /[^ \t\r]/.test(l)) : [text];
  $("source").textContent = source;
  records = r.data.records || [];
  if (!records.length) {
    showError($("replay-error"), r.data.message || "cannot read the record");
    $("viewer").classList.add("hidden"); document.body.dataset.state = "error"; return;
  }
  const sel = $("record-select");
  sel.replaceChildren(...records.map((x, i) => el("option", { value: i, text: `record ${i + 1}` + (x.result.error ? ` (${x.result.error})` : "") })));
  $("record-choice").classList.toggle("hidden", records.length < 2);
  await choose(0);
}

async function choose(i) {
  if (!records[i].frames) {  // a record of a .jsonl file: its frames now
    const r = await api("POST", "/api/replay", { text: texts[i], name: "record.json" });
    records[i].frames = [];
    Object.assign(records[i], (r.data.records || [])[0]);
  }
  rec = records[i];
  $("record-select").value = i;
  const err = rec.result.error ? rec.line : "";
  showError($("replay-error"), err ? `python -m schnapsen_env.replay says:\n${err}` : "");
  if (!rec.frames.length) { $("viewer").classList.add("hidden"); document.body.dataset.state = "error"; return; }
  $("viewer").classList.remove("hidden");
  $("slider").max = rec.frames.length - 1;
  const list = rec.frames.slice(1).map((f, k) => el("li", { "data-step": k + 1, text: `P${f.action.player}: ${f.action.text}` }));
  if (rec.failed_action) list.push(el("li", { class: "error", text: `P${rec.failed_action.player ?? "-"}: ${rec.failed_action.text} (illegal)` }));
  $("actions-list").replaceChildren(...list);
  $("actions-list").start = 1;
  go(0);
}

function cards(list, small) { return list.map((c) => cardEl(c, { cls: small ? "small" : "" })); }

function go(i) {
  if (!rec) return;
  pos = Math.max(0, Math.min(rec.frames.length - 1, i));
  const f = rec.frames[pos], n = rec.frames.length - 1;
  $("slider").value = pos;
  $("step-info").textContent = `step ${pos} / ${n}`;
  $("step-action").textContent = f.action ? `Action ${pos}: player ${f.action.player} ${f.action.label} [${f.action.text}]`
    : `Deal: player ${f.dealer} dealt, player ${1 - f.dealer} leads. Trump ${f.trump_suit.symbol} ${f.trump_suit.name}.`;
  for (const p of [0, 1]) {
    $(`hand-${p}`).replaceChildren(...cards(f.hands[p], true));
    $(`p${p}-info`).textContent = `eyes ${f.eyes[p]}${f.held_marriage_eyes[p] ? ` (+${f.held_marriage_eyes[p]} held)` : ""}, tricks ${f.tricks_won[p]}` +
      (f.current_player === p ? " - to move" : "");
  }
  const talon = cards(f.talon, true);
  if (f.trump_card) talon.push(cardEl(f.trump_card, { cls: "small trump-card" }));
  $("r-talon").replaceChildren(...talon);
  $("r-talon-note").textContent = f.closed_by >= 0 ? `closed by player ${f.closed_by}` : `${f.talon_size} face down + trump card`;
  $("r-trick").replaceChildren(...(f.lead ? [cardEl(f.lead)] : []));
  $("r-trick-note").textContent = f.lead ? `player ${f.leader} led` : "";
  if (f.last_trick) {
    $("r-last").replaceChildren(cardEl(f.last_trick.lead, { cls: "small" }), cardEl(f.last_trick.follow, { cls: "small" }));
    $("r-last-note").textContent = `won by player ${f.last_trick.winner}`;
  } else { $("r-last").replaceChildren(); $("r-last-note").textContent = ""; }
  $("r-meta").textContent = `${rec.variant}${Object.keys(rec.options || {}).length ? " " + JSON.stringify(rec.options) : ""}, dealer ${f.dealer}, trump ${f.trump_suit.symbol}`;
  for (const li of $("actions-list").children) li.classList.toggle("current", Number(li.dataset.step) === pos);
  const box = $("replay-result");
  const atEnd = pos === n;
  box.classList.toggle("hidden", !atEnd);
  if (atEnd) {
    const parts = [el("pre", { class: "line", id: "result-line", text: rec.line })];
    if (f.outcome) parts.unshift(el("h2", { text: `Player ${f.outcome.winner} wins ${f.outcome.game_points} game point${f.outcome.game_points > 1 ? "s" : ""} (${f.outcome.reason_text})` }),
                                 el("p", { text: f.outcome.explanation }));
    else if (!rec.result.error) parts.unshift(el("h2", { text: "The record ends before the game is over." }));
    box.replaceChildren(...parts);
  }
  document.body.dataset.state = atEnd ? "end" : "step";
}

init();
