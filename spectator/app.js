// cardtable phone page: follows one table over MQTT (WebSockets) and draws it.
//
// Sync model (docs/mqtt-topics.md): the retained `state` snapshot is authoritative and carries the
// `seq` of the last event it includes; `events` carry `seq` +1 each. The page shows a snapshot at
// once, applies events newer than what it shows (dropping duplicates by seq), and re-reads the
// snapshot when it sees a gap. Nothing here can publish: the broker's ACL makes phones read-only.
/* global mqtt */
"use strict";

(function () {
  const params = new URLSearchParams(location.search);
  const defaultBroker = (location.protocol === "https:" ? "wss://" : "ws://") +
    (location.hostname || "127.0.0.1") + ":" + (location.port || (location.protocol === "https:" ? 443 : 80));
  const brokerUrl = params.get("broker") || defaultBroker;
  const prefix = params.get("prefix") || "cardtable";
  let tableId = params.get("table") || null;   // null: follow the first table seen

  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RED = { H: true, D: true };
  const LOG_MAX = 40;

  let view = null;          // the snapshot plus events applied to it
  let shownSeq = 0;         // seq of the newest event reflected in `view`
  let buffered = new Map(); // events that arrived ahead of a snapshot or across a gap
  let tableStatus = null;
  let clientState = "connecting";
  let logItems = [];
  let client = null;
  let drawn = new Set();     // cards drawn by the last render, so only new ones animate

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- cards
  function parseCard(text) {
    const m = /^(10|[2-9TJQKA])([SHDC])(#\d)?$/.exec(String(text || "").trim().toUpperCase());
    if (!m) return null;
    return { rank: m[1] === "T" ? "10" : m[1], suit: m[2], text: m[1] + m[2] + (m[3] || "") };
  }
  function cardEl(text, extra) {
    const c = parseCard(text);
    const el = document.createElement("div");
    el.className = "card " + (c && RED[c.suit] ? "red" : "black") + (extra ? " " + extra : "");
    el.dataset.card = c ? c.text : String(text);
    el.setAttribute("aria-label", c ? c.rank + SUITS[c.suit] : String(text));
    el.innerHTML = c ? `<span class="rank">${c.rank}</span><span class="suit">${SUITS[c.suit]}</span>`
      : `<span class="rank">?</span>`;
    return el;
  }
  function cardText(text) {
    const c = parseCard(text);
    return c ? c.rank + SUITS[c.suit] : String(text);
  }
  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, (ch) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }
  function playerName(seat) {
    const p = view && (view.players || []).find((q) => q.seat === seat);
    return p ? p.name : seat == null ? "?" : "seat " + (seat + 1);
  }

  // The controller's events number hands and tricks from 0; shown from 1.
  const zeroBased = () => !!(view && view.zeroBased);
  const handNo = (h) => (zeroBased() ? h + 1 : h);
  const trickNo = (d) => (typeof d.trick === "number" ? (zeroBased() ? d.trick + 1 : d.trick) : "");
  const winnerOf = (d) => (d.winner != null ? d.winner : d.seat);

  // ---------------------------------------------------------------- events → view
  function describe(ev) {
    const d = ev.data || {};
    switch (ev.type) {
      case "hand_started": return `Hand ${typeof d.hand === "number" ? handNo(d.hand) : ""} starts` +
        (d.dealer != null ? `, ${playerName(d.dealer)} deals` : "");
      case "card_played": return `${playerName(d.seat)} plays ${cardText(d.card)}`;
      case "trick_won": return `${playerName(winnerOf(d))} wins trick ${trickNo(d)}`;
      case "violation": return d.text || `${playerName(d.seat)}: ${d.reason || d.kind || d.rule || "violation"}`;
      case "hand_scored": return `Hand ${typeof d.hand === "number" ? handNo(d.hand) : ""} scored` +
        (d.scores ? ": " + d.scores.map((x, i) => `${playerName(i)} ${x > 0 ? "+" : ""}${x}`).join(", ") : "");
      case "game_over": return d.text || d.reason || "Game over" +
        (d.winners && d.winners.length ? `: ${d.winners.map(playerName).join(" and ")} won` : "") +
        (d.winner != null ? `: ${playerName(d.winner)} wins` : "");
      case "correction": {
        const now = d.new || d.card, before = d.old || d.old_card;
        if (!now) return `Undone: ${playerName(d.seat)}'s ${cardText(before)}`;
        return `Correction: ${playerName(d.seat)} played ${cardText(now)}` + (before ? ` (not ${cardText(before)})` : "");
      }
      case "contract": {
        const c = d.contract || d.trump;
        const who = d.seat != null ? d.seat : d.declarer;
        return `${playerName(who)} declares ` + (/^[SHDC]$/.test(c || "") ? SUITS[c] + " trumps" :
          c === "MISERE" ? "misère" : "no trump");
      }
      case "pass": return `${playerName(d.seat)} passes: redeal`;
      case "exchange": return `${playerName(d.giver != null ? d.giver : d.from)} gives ${d.count} to ` +
        playerName(d.receiver != null ? d.receiver : d.to);
      case "card_rejected": return `Not accepted: ${d.reason || ""}`;
      case "turn": return `${playerName(d.seat)} to play`;
      case "draw": case "drew": return `${playerName(d.seat)} draws ${d.count || 1}`;
      case "stock_renewed": return `${playerName(d.seat)} shuffles the pile under the ${cardText(d.top)} into a new stock` +
        (d.cards != null ? ` (${d.cards} cards)` : "");
      case "player_out": return `${playerName(d.seat)} is out` + (d.place ? ` (place ${d.place})` : "");
      case "penalty": return `${playerName(d.target)} must add to the battle or draw ${d.amount}`;
      case "demand": return `${playerName(d.seat)} demands ` + (SUITS[d.demand] || `${d.demand}s`);
      case "skip": return `${playerName(d.seat)} loses ${d.turns || 1} turn${d.turns > 1 ? "s" : ""}`;
      case "undo": return "Undo" + (d.text ? ": " + d.text : "");
      case "error": return "Error: " + (d.error || "");
      case "camera": return d.headline ? `Table camera: ${d.headline}` : "Table camera sees the mat again";
      default: return d.text || ev.type.replace(/_/g, " ");
    }
  }

  function applyEvent(ev) {
    const d = ev.data || {};
    const v = view;
    const player = (seat) => (v.players || []).find((p) => p.seat === seat);
    switch (ev.type) {
      case "camera":
        v.camera = d.headline || null;
        break;
      case "hand_started":
        v.trick = { number: 1, cards: [] };
        v.hand = Object.assign({}, v.hand, { number: d.hand });
        break;
      case "card_played": {
        v.trick = v.trick || { cards: [] };
        v.trick.cards = (v.trick.cards || []).filter((c) => c.seat !== d.seat);
        if (v.trick.winner != null) { v.trick = { number: (v.trick.number || 0) + 1, cards: [] }; }
        v.trick.cards.push({ seat: d.seat, card: d.card });
        if (v.makao) v.makao.pile_top = d.card;
        const p = player(d.seat);
        if (p && typeof p.cards_left === "number") p.cards_left -= 1;
        break;
      }
      case "trick_won": {
        const w = winnerOf(d);
        const p = player(w);
        if (Array.isArray(d.tricks_taken)) {
          d.tricks_taken.forEach((t, seat) => { const q = player(seat); if (q) q.tricks = t; });
        } else if (p && typeof p.tricks === "number") p.tricks += 1;
        if (v.trick) v.trick.winner = w;
        break;
      }
      case "hand_scored":
        if (Array.isArray(d.scores)) {
          v.scores = v.scores || { columns: (v.players || []).map((q) => q.name), rows: [] };
          v.scores.rows = (v.scores.rows || []).filter((r) => r.hand !== handNo(d.hand));
          v.scores.rows.push({ hand: handNo(d.hand), values: d.scores });
          if (d.totals) v.scores.totals = d.totals;
        }
        break;
      case "turn": v.turn = d.seat; break;
      case "violation": (v.violations = v.violations || []).push({ text: describe({ type: "violation", data: d }) }); break;
      case "correction": {
        const now = d.new || d.card;
        if (v.trick && v.trick.cards) {
          if (now) v.trick.cards.forEach((c) => { if (c.seat === d.seat) c.card = now; });
          else v.trick.cards = v.trick.cards.filter((c) => c.seat !== d.seat);  // undone
        }
        break;
      }
      case "game_over": v.over = d; break;
      default: break;
    }
  }

  function onEvent(ev) {
    if (typeof ev.seq !== "number" || ev.seq <= shownSeq) return;      // duplicate or old
    addLog(ev);
    if (!view || ev.seq > shownSeq + 1) {                               // ahead of what we show
      buffered.set(ev.seq, ev);
      if (view) resync();
      return;
    }
    applyEvent(ev);
    shownSeq = ev.seq;
    drain();
    render();
  }

  // The controller publishes its TableState (docs/mqtt-topics.md): names in `players`, per-seat lists
  // beside them, 0-based hand and trick numbers. Turn it into the page's seat-by-seat model; a snapshot
  // already in that model (players as objects) passes through.
  function normalize(st) {
    const names = st.players || [];
    if (!names.length || typeof names[0] === "object") return st;
    const at = (list, i) => (Array.isArray(list) && i < list.length ? list[i] : undefined);
    const makao = st.game === "makao";
    const out = st.out || [];
    const players = names.map((name, seat) => {
      const roles = [];
      if (st.dealer === seat) roles.push("dealer");
      if (!makao && st.declarer === seat) roles.push("declarer");
      const place = out.indexOf(seat);
      if (place >= 0) roles.push(`out #${place + 1}`);
      return {
        seat, name, role: roles.join(" · "),
        target: makao ? undefined : at(st.targets, seat),
        tricks: makao ? undefined : at(st.tricks_taken, seat),
        cards_left: makao ? at(st.cards_left, seat) : undefined,
        out: place >= 0,
      };
    });
    const contract = st.contract || "";
    const trump = /^[SHDC]$/.test(contract) ? contract : null;
    const labels = { S: "spades are trumps", H: "hearts are trumps", D: "diamonds are trumps",
      C: "clubs are trumps", NT: "no trump", MISERE: "misère", PASS: "pass" };
    const cards = (st.current_trick || []).map((c) => ({ seat: c.seat, card: c.card }));
    const full = cards.length > 0 && cards.length >= names.length;
    const v = {
      v: 1, seq: st.seq, game: st.game, preset: st.preset, phase: st.phase, message: st.message,
      hand: { number: (st.hand || 0) + 1, total: st.hands_total },
      turn: st.turn, players,
      contract: contract && !makao ? { declarer: st.declarer, trump, label: labels[contract] || contract } : null,
      trick: { number: (st.trick || 0) + 1, cards, winner: full ? st.last_trick_winner : null },
      scores: { columns: names.slice(), rows: (view && view.scores && view.scores.rows) || [],
        totals: st.totals && st.totals.length ? st.totals : null },
      violations: (st.violations || []).map((x) => (typeof x === "string" ? { text: x } : x)),
      over: st.game_over ? { text: st.message || "Game over" } : null,
      camera: st.camera || null,  // the table's camera cannot see the mat: what it says (the referee waits)
      zeroBased: true,
    };
    if (makao) {
      const demand = st.demand ? (/^[SHDC]$/.test(st.demand) ? { suit: st.demand } : { rank: st.demand }) : null;
      v.makao = { pile_top: st.top_card, pending_draw: st.penalty, pending_skip: st.skip, demand };
    }
    return v;
  }

  function onState(state) {
    if (typeof state.seq !== "number" || state.seq < shownSeq) return;  // an older snapshot
    view = normalize(state);
    shownSeq = state.seq;
    drain();
    render();
  }

  function drain() {
    for (const seq of [...buffered.keys()].sort((a, b) => a - b)) {
      if (seq <= shownSeq) { buffered.delete(seq); continue; }
      if (seq !== shownSeq + 1) break;
      applyEvent(buffered.get(seq));
      shownSeq = seq;
      buffered.delete(seq);
    }
  }

  function addLog(ev) {
    if (logItems.some((e) => e.seq === ev.seq)) return;
    logItems.push(ev);
    logItems.sort((a, b) => a.seq - b.seq);
    if (logItems.length > LOG_MAX) logItems = logItems.slice(-LOG_MAX);
  }

  // ---------------------------------------------------------------- rendering
  function seatPosition(i, n) {
    // Seat 0 at the bottom (nearest the phone's holder), others clockwise.
    const a = Math.PI / 2 + (2 * Math.PI * i) / n;
    return { x: 50 + 35 * Math.cos(a), y: 50 + 40 * Math.sin(a) };
  }

  function render() {
    renderConn();
    $("seq").textContent = "seq " + shownSeq;
    $("table-id").textContent = tableId ? "table " + tableId : "no table yet";
    if (!view) return;
    const v = view;
    const players = v.players || [];
    const n = Math.max(players.length, 1);
    const gameName = v.game === "makao" ? "Makao" : v.game === "358" ? "3-5-8" : (v.game || "");
    const hand = v.hand && v.hand.number ? ` · hand ${v.hand.number}${v.hand.total ? "/" + v.hand.total : ""}` : "";
    $("title").textContent = "cardtable" + (tableId ? " · " + tableId : "");
    $("game-line").textContent = [gameName, v.preset].filter(Boolean).join(" · ") + hand +
      (v.phase ? ` · ${v.phase}` : "");
    const contract = $("contract");
    if (v.contract) {
      const t = v.contract.trump;
      contract.hidden = false;
      contract.innerHTML = `<span class="trump ${RED[t] ? "red" : ""}">${t ? SUITS[t] : "–"}</span> ` +
        esc(v.contract.label || (t ? "trumps" : "no trumps")) +
        (v.contract.declarer != null ? ` · declared by ${esc(playerName(v.contract.declarer))}` : "");
    } else {
      contract.hidden = true;
    }
    $("message").textContent = v.message || (v.turn != null ? `${playerName(v.turn)} to play` : "");
    const camera = $("camera");
    camera.hidden = !v.camera;
    camera.textContent = v.camera ? `Table camera: ${v.camera}. Cards laid now are not seen until it is put right.` : "";

    // seats
    const seats = $("seats");
    seats.textContent = "";
    players.forEach((p, i) => {
      const pos = seatPosition(i, n);
      const el = document.createElement("div");
      el.className = "seat" + (p.seat === v.turn ? " turn" : "") + (p.out ? " out" : "");
      el.dataset.seat = p.seat;
      el.style.left = pos.x + "%";
      el.style.top = pos.y + "%";
      const bits = [];
      if (typeof p.tricks === "number") bits.push(`tricks ${p.tricks}` + (p.target != null ? `/${p.target}` : ""));
      else if (p.target != null) bits.push(`target ${p.target}`);
      if (typeof p.cards_left === "number") bits.push(`${p.cards_left} cards`);
      el.innerHTML = `<div class="name">${esc(p.name)}</div>` +
        (p.role ? `<div class="role">${esc(p.role)}</div>` : "") +
        `<div class="tricks">${esc(bits.join(" · "))}</div>` +
        (p.seat === v.turn ? `<div class="to-play">to play</div>` : "");
      seats.appendChild(el);
    });

    // current trick, each card in front of its player
    const trick = $("trick");
    trick.textContent = "";
    const isMakao = v.game === "makao";
    const nowDrawn = new Set();
    const fresh = (card) => { nowDrawn.add(card); return drawn.has(card) ? "" : " fresh"; };
    if (!isMakao && v.trick) {
      (v.trick.cards || []).forEach((c) => {
        const idx = players.findIndex((p) => p.seat === c.seat);
        const pos = seatPosition(idx < 0 ? 0 : idx, n);
        const slot = document.createElement("div");
        slot.className = "slot";
        slot.style.left = 50 + (pos.x - 50) * 0.75 + "%";
        slot.style.top = 50 + (pos.y - 50) * 0.75 + "%";
        slot.appendChild(cardEl(c.card, (c.seat === v.trick.winner ? "winner" : "") + fresh(c.card)));
        trick.appendChild(slot);
      });
      if (v.trick.winner != null) {
        const won = document.createElement("div");
        won.className = "won";
        won.textContent = `${playerName(v.trick.winner)} takes it`;
        trick.appendChild(won);
      }
    }
    // Makao: pile top, pending penalty or demand
    const mk = $("makao");
    mk.hidden = !isMakao;
    if (isMakao) {
      const m = v.makao || {};
      const top = $("pile-top");
      top.textContent = "";
      if (m.pile_top) top.appendChild(cardEl(m.pile_top, fresh(m.pile_top)));
      const pend = [];
      if (m.pending_draw) pend.push(`draw ${m.pending_draw}`);
      if (m.pending_skip) pend.push(`skip ${m.pending_skip}`);
      if (m.demand && m.demand.rank) pend.push(`demand ${m.demand.rank}`);
      if (m.demand && m.demand.suit) pend.push(`demand ${SUITS[m.demand.suit] || m.demand.suit}`);
      $("makao-pending").textContent = pend.join(" · ");
    }
    drawn = nowDrawn;
    const oldBanner = document.querySelector(".banner");
    if (oldBanner) oldBanner.remove();
    if (v.over) {
      const b = document.createElement("div");
      b.className = "banner";
      b.textContent = v.over.text || (v.over.winner != null ? `${playerName(v.over.winner)} wins` : "Game over");
      $("felt").appendChild(b);
    }

    // violations
    const viol = v.violations || [];
    $("violations-box").hidden = viol.length === 0;
    $("violations").innerHTML = viol.map((x) => `<li>${esc(x.text || (playerName(x.seat) + ": " + x.kind))}</li>`).join("");

    renderScores(v);
    $("log").innerHTML = logItems.slice().reverse()
      .map((e) => `<li class="t-${esc(e.type)}" data-seq="${e.seq}">${esc(describe(e))}</li>`).join("");
  }

  function renderScores(v) {
    const s = v.scores || {};
    const cols = s.columns || (v.players || []).map((p) => p.name);
    const table = $("scores");
    $("scores-box").hidden = !(s.rows && s.rows.length) && !s.totals;
    const num = (x) => `<td class="${x < 0 ? "neg" : x > 0 ? "pos" : ""}">${x > 0 ? "+" : ""}${esc(x)}</td>`;
    table.tHead.innerHTML = `<tr><th>hand</th>${cols.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>`;
    table.tBodies[0].innerHTML = (s.rows || []).map((r) =>
      `<tr><td>${esc(r.hand)}</td>${(r.values || []).map(num).join("")}</tr>`).join("");
    table.tFoot.innerHTML = s.totals ? `<tr><td>total</td>${s.totals.map((x) => `<td>${esc(x)}</td>`).join("")}</tr>` : "";
  }

  function renderConn() {
    let cls = clientState, text = clientState;
    if (clientState === "online") {
      if (tableStatus === "offline") { cls = "offline"; text = "table offline"; }
      else if (tableStatus === "stopped") { cls = "stopped"; text = "table stopped"; }
      else { text = "live"; }
    }
    const conn = $("conn");
    conn.className = "conn conn-" + cls;
    conn.dataset.state = cls;
    $("conn-text").textContent = text;
  }

  // ---------------------------------------------------------------- MQTT
  function topic(kind) { return `${prefix}/${tableId || "+"}/${kind}`; }

  function resync() {
    // mqtt.js skips a SUBSCRIBE for a topic it holds, so unsubscribe first to get the retained state again.
    if (!client || !client.connected) return;
    client.unsubscribe(topic("state"), () => client.subscribe(topic("state"), { qos: 1 }));
  }

  function connect() {
    client = mqtt.connect(brokerUrl, { clean: true, reconnectPeriod: 1000, connectTimeout: 5000, keepalive: 20 });
    client.on("connect", () => {
      clientState = "online";
      client.subscribe([topic("status"), topic("state"), topic("events")], { qos: 1 });
      render();
    });
    client.on("reconnect", () => { clientState = "connecting"; render(); });
    client.on("close", () => { if (clientState !== "connecting") { clientState = "offline"; render(); } });
    client.on("offline", () => { clientState = "offline"; render(); });
    client.on("message", (t, payload) => {
      const parts = t.split("/");
      if (parts.length !== 3 || parts[0] !== prefix) return;
      if (!tableId) tableId = parts[1];          // follow the first table seen
      if (parts[1] !== tableId) return;
      const text = new TextDecoder().decode(payload);
      if (parts[2] === "status") { tableStatus = text; render(); return; }
      let obj;
      try { obj = JSON.parse(text); } catch (e) { return; }
      if (parts[2] === "state") onState(obj);
      else if (parts[2] === "events") onEvent(obj);
    });
  }

  window.cardtable = { get view() { return view; }, get seq() { return shownSeq; }, brokerUrl };
  render();
  connect();
})();
