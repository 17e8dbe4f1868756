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
const RANKS = ["A", "10", "K", "Q", "J", "9"];
// a face-up card: rank and suit symbol, its English name below (German in the tooltip)
function cardEl(card, opts) {
  opts = opts || {};
  const tag = opts.button ? "button" : "div";
  const e = el(tag, { class: "card" + (card.red ? " red" : "") + (opts.cls ? " " + opts.cls : ""),
                      title: `${card.name} (${card.de})`, "data-card": card.code },
               el("span", { class: "big", text: RANKS[card.rank] + card.symbol }),
               el("span", { class: "name", text: card.name }));
  return e;
}
function backEl(cls) { return el("div", { class: "card back" + (cls ? " " + cls : ""), title: "face-down card" }); }
function showError(node, text) { node.textContent = text; node.classList.toggle("hidden", !text); }
