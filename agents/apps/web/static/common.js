// shared helpers of the three pages (plain JS, no build step)
"use strict";
// every POST is JSON, to this server (it refuses other bodies and other origins)
async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (method !== "GET") { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body || {}); }
  const r = await fetch(url, opts);
  let data;
  try { data = await r.json(); } catch (e) { data = { error: "bad_response", message: `HTTP ${r.status}` }; }
  return { ok: r.ok, status: r.status, data };
}
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
const RANKS = { A: "A", T: "10", K: "K", Q: "Q", J: "J", 9: "9" };
const SUITS = { C: "\u2663", S: "\u2660", H: "\u2665", D: "\u2666" };
// a face-up card (code "TH": rank letter, suit letter): rank and suit symbol, its English name below
function cardEl(card, opts) {
  opts = opts || {};
  const rank = card.code.slice(0, -1), suit = card.code.slice(-1);
  return el(opts.button ? "button" : "div", { class: "card" + ("HD".includes(suit) ? " red" : "") + (opts.cls ? " " + opts.cls : ""),
                                              title: card.name, "data-card": card.code },
            el("span", { class: "big", text: RANKS[rank] + SUITS[suit] }),
            el("span", { class: "name", text: card.name }));
}
function backEl(cls) { return el("div", { class: "card back" + (cls ? " " + cls : ""), title: "face-down card" }); }
function showError(node, text) { node.textContent = text; node.classList.toggle("hidden", !text); }
