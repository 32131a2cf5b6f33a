// The Luprex web view: draws the client's asynchronous model and sends
// the player's commands over the WebSocket /ws (see web/protocol.rs).
//
// The map animates: `clock` is a tick count that runs at the server's
// tick rate and is pulled towards the tick of the latest state message;
// each tangible is drawn at its animation queue's point for `clock`
// (linear between steps, as the engine computes it), so movement is
// smooth between messages and ticks. The camera follows the player's
// drawn position; while a command of the player awaits its
// acknowledgement (a prediction), a dashed halo surrounds the player.
//
// What tests read: <body data-player>, the status bar's data-world-x/y
// (the player's position in the client's World at the last state),
// data-pending, the canvas's data-player-x/y (where the map draws the
// player now), and each #nearby li's data-id/data-x/data-y.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
const ctx = canvas.getContext("2d");
const REACH = 6; // tui::lookup::TARGET_RADIUS

let ws = null;
let state = null; // the latest state message
let lastTickAt = 0; // performance.now() when it arrived
let clock = null; // the animation clock, in ticks
let scale = 32; // pixels per world unit
let cam = null; // [x, y] the map's centre
let walkMark = null; // where the player was last sent
let hoverAt = null; // [px, py] of the mouse over the map
let lastMispredictions = 0;
const history = [];
let recall = -1;

// ---- the connection ------------------------------------------------------

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws`);
  ws.onopen = () => setConn("connected", "page connected");
  ws.onclose = () => {
    setConn("lost", "page disconnected (retrying)");
    setTimeout(connect, 1500);
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (msg.t === "state") onState(msg);
    else if (msg.t === "prints") onPrints(msg.lines);
    else if (msg.t === "error") addLocal(`! refused: ${msg.text}`, "refused");
  };
}

function send(obj) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
  else addLocal("! not connected to the client", "refused");
}

function setConn(kind, text) {
  $("status").dataset.connection = kind;
  $("st-conn").textContent = text;
}

// ---- messages --------------------------------------------------------------

function onState(msg) {
  state = msg;
  lastTickAt = performance.now();
  if (clock === null || Math.abs(clock - msg.tick) > 10) clock = msg.tick;
  document.body.dataset.player = msg.player;
  const st = $("status");
  const s = msg.status;
  setConn(s.connection.startsWith("lost") ? "lost" : "connected", s.connection);
  $("st-tick").textContent = `tick ${msg.tick}`;
  if (msg.pos) {
    st.dataset.worldX = msg.pos[0];
    st.dataset.worldY = msg.pos[1];
    $("st-pos").textContent = `at ${fmt(msg.pos[0])},${fmt(msg.pos[1])}`;
  }
  $("st-latency").textContent = s.latency_ms == null ? "latency –" : `latency ${s.latency_ms} ms`;
  st.dataset.pending = s.pending;
  $("st-pending").textContent = `pending ${s.pending}`;
  st.dataset.mispredictions = s.mispredictions;
  const mis = $("st-mispredicted");
  mis.textContent = `mispredicted ${s.mispredictions}`;
  if (s.mispredictions > lastMispredictions) {
    mis.classList.add("flash");
    setTimeout(() => mis.classList.remove("flash"), 1500);
  }
  lastMispredictions = s.mispredictions;
  renderLegend(msg.legend);
  renderNearby(msg);
}

let printsKey = "";
function onPrints(lines) {
  const key = lines.length + "\u0000" + lines.join("\n");
  if (key === printsKey) return;
  printsKey = key;
  const box = $("prints");
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 8;
  const local = [...box.querySelectorAll(".local")].map((e) => e.cloneNode(true));
  box.replaceChildren();
  for (const line of lines) {
    const div = document.createElement("div");
    div.textContent = line;
    if (line.startsWith("! ")) div.className = "warn";
    box.appendChild(div);
  }
  for (const e of local.slice(-20)) box.appendChild(e);
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function addLocal(text, cls) {
  const box = $("prints");
  const div = document.createElement("div");
  div.textContent = text;
  div.className = `local ${cls || ""}`;
  box.appendChild(div);
  box.scrollTop = box.scrollHeight;
}

function fmt(v) {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

// ---- the side panels ----------------------------------------------------------

function glyphSpan(g, color) {
  const span = document.createElement("span");
  span.className = "glyph";
  span.style.background = color;
  span.textContent = g;
  return span;
}

let legendKey = "";
function renderLegend(legend) {
  const key = JSON.stringify(legend);
  if (key === legendKey) return;
  legendKey = key;
  const ul = $("legend");
  ul.replaceChildren();
  for (const c of legend) {
    const li = document.createElement("li");
    li.appendChild(glyphSpan(c.glyph, c.color));
    li.append(`${c.class} ×${c.count}`);
    li.dataset.class = c.class;
    ul.appendChild(li);
  }
}

// The rows of #nearby, by tangible ID: updated in place (a row that were
// rebuilt each frame would lose the click being made on its button).
const rows = new Map();

function renderNearby(msg) {
  const here = msg.pos || [0, 0, 0];
  const shown = msg.things.slice(0, 40);
  const ul = $("nearby");
  const keep = new Set();
  shown.forEach((t, i) => {
    const p = positionAt(t.steps, msg.tick);
    const d = Math.hypot(p[0] - here[0], p[1] - here[1]);
    let row = rows.get(t.id);
    if (!row) {
      row = newRow(t.id);
      rows.set(t.id, row);
    }
    keep.add(t.id);
    updateRow(row, t, p, d, msg.player);
    if (ul.children[i] !== row.li) ul.insertBefore(row.li, ul.children[i] || null);
  });
  for (const [id, row] of rows) {
    if (!keep.has(id)) {
      row.li.remove();
      rows.delete(id);
    }
  }
}

function newRow(id) {
  const li = document.createElement("li");
  li.dataset.id = id;
  const glyph = glyphSpan("", "");
  const label = document.createTextNode("");
  const acts = document.createElement("span");
  acts.className = "acts";
  const plans = document.createElement("div");
  plans.className = "plan";
  li.append(glyph, label, acts, plans);
  return { li, glyph, label, acts, plans, key: null };
}

function updateRow(row, t, p, d, player) {
  const li = row.li;
  li.dataset.class = t.class;
  li.dataset.x = p[0];
  li.dataset.y = p[1];
  li.classList.toggle("me", t.id === player);
  li.classList.toggle("far", d > REACH && t.id !== player);
  row.glyph.textContent = t.glyph;
  row.glyph.style.background = t.color;
  const who = t.name ? ` ${t.name}` : "";
  row.label.textContent = t.id === player
    ? `#${t.id}${who || " " + t.class} (you)`
    : `#${t.id} ${t.class}${who} ${d.toFixed(1)}`;
  const key = JSON.stringify([t.actions, t.plans]);
  if (key === row.key) return;
  row.key = key;
  row.acts.replaceChildren();
  for (const a of t.actions) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.name;
    b.textContent = a.args ? `${a.name}…` : a.name;
    b.title = a.args ? `/${a.name}@${t.id} with arguments` : `/${a.name}@${t.id}`;
    b.onclick = () => act(t.id, a);
    row.acts.appendChild(b);
  }
  row.plans.textContent = t.plans.length ? `plans: ${t.plans.join(", ")}` : "";
}

function act(id, a) {
  if (a.args) {
    const cmd = $("cmd");
    cmd.value = `/${a.name}@${id} `;
    cmd.focus();
  } else {
    send({ t: "invoke", target: id, name: a.name, args: [] });
  }
}

// ---- the command line and keys ---------------------------------------------

$("cmdform").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const cmd = $("cmd");
  const text = cmd.value;
  if (!text.trim()) return;
  send({ t: "line", text });
  if (history[history.length - 1] !== text) history.push(text);
  recall = -1;
  cmd.value = "";
});

$("cmd").addEventListener("keydown", (ev) => {
  const cmd = $("cmd");
  if (ev.key === "ArrowUp" && history.length) {
    recall = recall < 0 ? history.length - 1 : Math.max(0, recall - 1);
    cmd.value = history[recall];
    ev.preventDefault();
  } else if (ev.key === "ArrowDown" && recall >= 0) {
    recall += 1;
    cmd.value = recall < history.length ? history[recall] : "";
    if (recall >= history.length) recall = -1;
    ev.preventDefault();
  } else if (ev.key === "Escape") {
    cmd.value = "";
    cmd.blur();
  }
});

// Outside the command line: arrows and WASD walk one step from where the
// player is headed (as in the terminal), Enter, t and / open the line.
document.addEventListener("keydown", (ev) => {
  if (document.activeElement === $("cmd")) return;
  const steps = {
    ArrowUp: [0, 1], w: [0, 1], ArrowDown: [0, -1], s: [0, -1],
    ArrowLeft: [-1, 0], a: [-1, 0], ArrowRight: [1, 0], d: [1, 0],
  };
  const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (steps[k]) {
    const me = myThing();
    if (!me) return;
    const last = me.steps[me.steps.length - 1];
    walkTo(Math.round(last[1]) + steps[k][0], Math.round(last[2]) + steps[k][1]);
    ev.preventDefault();
  } else if (k === "Enter" || k === "t" || k === "/") {
    $("cmd").focus();
    if (k === "/") $("cmd").value = "/";
    ev.preventDefault();
  }
});

function walkTo(x, y) {
  walkMark = [x, y];
  send({ t: "walk", x, y });
}

// ---- the map -----------------------------------------------------------------

function myThing() {
  return state && state.things.find((t) => t.id === state.player);
}

// The engine's AnimationQueue::position_at, for a fractional tick.
function positionAt(steps, t) {
  let i = 0;
  while (i < steps.length && steps[i][0] <= t) i++;
  if (i === 0) return steps[0].slice(1);
  if (i === steps.length) return steps[steps.length - 1].slice(1);
  const a = steps[i - 1];
  const b = steps[i];
  const f = (t - a[0]) / (b[0] - a[0]);
  return [1, 2, 3].map((k) => a[k] + (b[k] - a[k]) * f);
}

function toScreen(x, y) {
  return [canvas.width / 2 + (x - cam[0]) * scale, canvas.height / 2 - (y - cam[1]) * scale];
}

function toWorld(px, py) {
  return [cam[0] + (px - canvas.width / 2) / scale, cam[1] - (py - canvas.height / 2) / scale];
}

function canvasPoint(ev) {
  const r = canvas.getBoundingClientRect();
  return [(ev.clientX - r.left) * (canvas.width / r.width), (ev.clientY - r.top) * (canvas.height / r.height)];
}

canvas.addEventListener("click", (ev) => {
  if (!cam) return;
  const [wx, wy] = toWorld(...canvasPoint(ev));
  walkTo(Math.round(wx), Math.round(wy));
});
canvas.addEventListener("mousemove", (ev) => { hoverAt = canvasPoint(ev); });
canvas.addEventListener("mouseleave", () => { hoverAt = null; });
canvas.addEventListener("wheel", (ev) => {
  ev.preventDefault();
  scale = Math.min(96, Math.max(8, scale * (ev.deltaY < 0 ? 1.15 : 1 / 1.15)));
}, { passive: false });

let lastFrame = performance.now();
function frame(now) {
  const dt = Math.min(0.25, (now - lastFrame) / 1000);
  lastFrame = now;
  resize();
  if (state) {
    const hz = state.tick_hz || 20;
    // Where the server's clock should be now, without running far ahead
    // of the last message.
    const target = state.tick + Math.min(3, ((now - lastTickAt) / 1000) * hz);
    clock += dt * hz;
    clock += (target - clock) * Math.min(1, dt * 4);
    draw();
  }
  requestAnimationFrame(frame);
}

function resize() {
  const r = canvas.getBoundingClientRect();
  const w = Math.max(100, Math.round(r.width));
  const h = Math.max(100, Math.round(r.height));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
}

function draw() {
  const things = state.things.map((t) => ({ t, p: positionAt(t.steps, clock) }));
  const me = things.find((e) => e.t.id === state.player);
  if (me) {
    cam = [me.p[0], me.p[1]];
    canvas.dataset.playerX = me.p[0].toFixed(2);
    canvas.dataset.playerY = me.p[1].toFixed(2);
  } else if (!cam) {
    cam = [0, 0];
  }
  ctx.fillStyle = "#1d2a1f";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  drawGrid();
  if (me) {
    const [cx, cy] = toScreen(me.p[0], me.p[1]);
    ctx.strokeStyle = "rgba(232,180,90,0.25)";
    ctx.setLineDash([4, 6]);
    ctx.beginPath();
    ctx.arc(cx, cy, REACH * scale, 0, Math.PI * 2);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  if (walkMark && me && Math.hypot(me.p[0] - walkMark[0], me.p[1] - walkMark[1]) > 0.05) {
    const [mx, my] = toScreen(walkMark[0], walkMark[1]);
    ctx.strokeStyle = "#e8b45a";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(mx - 6, my - 6); ctx.lineTo(mx + 6, my + 6);
    ctx.moveTo(mx + 6, my - 6); ctx.lineTo(mx - 6, my + 6);
    ctx.stroke();
    ctx.lineWidth = 1;
  }
  // Paths of moving tangibles: the rest of their queue.
  for (const { t, p } of things) {
    if (t.steps.length < 2) continue;
    ctx.strokeStyle = "rgba(255,255,255,0.25)";
    ctx.beginPath();
    ctx.moveTo(...toScreen(p[0], p[1]));
    for (const s of t.steps) if (s[0] > clock) ctx.lineTo(...toScreen(s[1], s[2]));
    ctx.stroke();
  }
  // The player last, on top.
  things.sort((a, b) => (a.t.id === state.player) - (b.t.id === state.player));
  const r = Math.max(6, scale * 0.42);
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.font = `bold ${Math.round(r * 1.2)}px ui-monospace, monospace`;
  const names = [];
  for (const { t, p } of things) {
    const [x, y] = toScreen(p[0], p[1]);
    if (x < -r || y < -r || x > canvas.width + r || y > canvas.height + r) continue;
    ctx.fillStyle = t.color;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, Math.PI * 2);
    ctx.fill();
    if (t.id === state.player) {
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 3;
      ctx.stroke();
      ctx.lineWidth = 1;
      if (state.status.pending > 0) {
        // A prediction not yet acknowledged: a dashed halo.
        ctx.strokeStyle = "#e8b45a";
        ctx.setLineDash([3, 4]);
        ctx.beginPath();
        ctx.arc(x, y, r + 5, 0, Math.PI * 2);
        ctx.stroke();
        ctx.setLineDash([]);
      }
    }
    ctx.fillStyle = "#111";
    ctx.fillText(t.glyph, x, y + 1);
    if (t.name) names.push([t.name, x, y + r + 8]);
  }
  ctx.font = "12px ui-monospace, monospace";
  ctx.fillStyle = "#e8e8e8";
  for (const [name, x, y] of names) ctx.fillText(name, x, y);
  drawHover(things);
}

function drawGrid() {
  const [x0, y1] = toWorld(0, 0);
  const [x1, y0] = toWorld(canvas.width, canvas.height);
  ctx.strokeStyle = "rgba(255,255,255,0.06)";
  ctx.beginPath();
  for (let x = Math.ceil(x0); x <= x1; x++) {
    const [sx] = toScreen(x, 0);
    ctx.moveTo(sx, 0); ctx.lineTo(sx, canvas.height);
  }
  for (let y = Math.ceil(y0); y <= y1; y++) {
    const [, sy] = toScreen(0, y);
    ctx.moveTo(0, sy); ctx.lineTo(canvas.width, sy);
  }
  ctx.stroke();
}

function drawHover(things) {
  const box = $("hover");
  if (!hoverAt || !cam) { box.textContent = ""; return; }
  const [wx, wy] = toWorld(...hoverAt);
  const under = things.filter(({ p }) => Math.hypot(p[0] - wx, p[1] - wy) < 0.5)
    .map(({ t }) => `#${t.id} ${t.class}`);
  box.textContent = `${Math.round(wx)},${Math.round(wy)}${under.length ? " · " + under.join(", ") : ""}`;
}

connect();
requestAnimationFrame(frame);
