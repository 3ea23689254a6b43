// The tourney replay viewer, inlined into every page `tourney replay html` writes.
//
// It draws a game step by step from the views the engine computed (embedded, delta-encoded,
// in the page's JSON block; see replays/html.py) and knows no rules of its own. When the page
// opens it recomputes the log's hash chain over the embedded canonical event bodies with
// WebCrypto, checks every private part it holds against its commitment, and checks the
// Ed25519 signature of the head if the log is signed. Everything is built with DOM calls and
// text nodes, never from HTML strings, so no log content is ever read as markup.
"use strict";

const Tourney = (() => {
  const games = {};

  // -- building the page ---------------------------------------------------------------------

  function h(tag, attrs, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") element.className = value;
      else if (name === "on") for (const [event, handler] of Object.entries(value)) element.addEventListener(event, handler);
      else element.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child !== null && child !== undefined && child !== false) element.append(child instanceof Node ? child : String(child));
    }
    return element;
  }

  /** A card drawn with CSS: its face text, extra classes, and a tooltip saying what it is. */
  function card(face, classes, title) {
    return h("span", {class: "card " + (classes || ""), title: title || null}, String(face));
  }

  /** Face-down cards: one card back with how many there are. */
  function backs(count, what) {
    return h("span", {class: "card back", title: `${count} ${what}`}, String(count));
  }

  function zone(title, ...children) {
    return h("div", {class: "zone"}, h("div", {class: "zone-title"}, title), h("div", {class: "zone-cards"}, children));
  }

  // -- delta-encoded views (replays/delta.py: the same operations) ----------------------------

  function applyPatch(value, ops) {
    for (const op of ops) value = applyOp(value, op[0], 0, op.length > 1, op[1]);
    return value;
  }

  function applyOp(value, path, depth, setting, newValue) {
    if (depth === path.length) return newValue;
    const key = path[depth];
    const copy = Array.isArray(value) ? value.slice() : Object.assign({}, value);
    if (depth < path.length - 1) copy[key] = applyOp(value[key], path, depth + 1, setting, newValue);
    else if (setting) copy[key] = newValue;
    else if (Array.isArray(copy)) copy.length = key;
    else delete copy[key];
    return copy;
  }

  function decodeViews(data) {
    const spectator = [];
    let view = null;
    for (const ops of data.spectator) spectator.push(view = applyPatch(view, ops));
    const own = {};
    for (const [seat, patches] of Object.entries(data.own)) {
      let ops = [];
      own[seat] = patches.map((patch) => (ops = patch === null ? ops : patch));
    }
    const cache = new Map();
    function seatView(step, seat) {
      const key = step + "/" + seat;
      if (!cache.has(key)) cache.set(key, applyPatch(spectator[step], own[seat][step]));
      return cache.get(key);
    }
    return {spectator, seatView};
  }

  // -- verification ---------------------------------------------------------------------------

  const utf8 = new TextEncoder();

  function hex(bytes) {
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function unhex(text) {
    if (typeof text !== "string" || !/^([0-9a-f]{2})*$/.test(text)) throw new Error("not hex");
    return new Uint8Array(text.match(/../g)?.map((pair) => parseInt(pair, 16)) || []);
  }

  function joined(a, b) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }

  async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  }

  /** The chain as ledger/chain.py makes it: hash = SHA-256(previous hash ‖ body), 32 zero bytes first. */
  async function checkChain(data, bodies) {
    let previous = new Uint8Array(32);
    for (let seq = 0; seq < data.events.length; seq++) {
      const body = bodies[seq];
      if (!body || body.seq !== seq || body.game !== data.game_id) {
        return {ok: false, seq, why: "its body does not name this game and seq"};
      }
      previous = await sha256(joined(previous, utf8.encode(data.events[seq][0])));
      if (hex(previous) !== data.events[seq][1]) return {ok: false, seq, why: "its body does not match its hash"};
    }
    if (hex(previous) !== data.head) return {ok: false, seq: data.events.length - 1, why: "the head hash differs"};
    for (const [seq, text, salt] of data.private) {
      if (hex(await sha256(joined(unhex(salt), utf8.encode(text)))) !== bodies[seq]?.commitment) {
        return {ok: false, seq, why: "its private part does not match its commitment"};
      }
    }
    return {ok: true, head: hex(previous)};
  }

  /** replays/signing.py: Ed25519 over "tourney-log-v1" 0x00 game_id 0x00 head. */
  async function checkSignature(data) {
    const signature = data.signature;
    if (!signature) return {state: "unsigned"};
    try {
      if (signature.algorithm !== "ed25519") return {state: "bad", why: `unknown algorithm ${signature.algorithm}`};
      const raw = unhex(signature.public_key);
      const fingerprint = hex(await sha256(raw)).slice(0, 16);
      let key;
      try {
        key = await crypto.subtle.importKey("raw", raw, {name: "Ed25519"}, false, ["verify"]);
      } catch (error) {
        return {state: "unchecked", fingerprint, why: "this browser cannot check Ed25519 signatures"};
      }
      const message = utf8.encode(`tourney-log-v1\u0000${data.game_id}\u0000${data.head}`);
      const valid = await crypto.subtle.verify({name: "Ed25519"}, key, unhex(signature.signature), message);
      return valid ? {state: "good", fingerprint} : {state: "bad", fingerprint, why: "it does not match the head"};
    } catch (error) {
      return {state: "bad", why: "it cannot be read"};
    }
  }

  /** What the page can say of its log, as one verdict (docs/replays.md, "What the page verifies"):
   * verified (chain intact and signed by the key shown), unverified (nothing wrong found, but no
   * signature vouches for it), or broken (the chain or the signature fails). */
  async function judge(data, bodies) {
    if (!globalThis.crypto?.subtle) {
      return {state: "unverified", text: "Unverified: this browser gives no WebCrypto here, so nothing was " +
        "checked (open the file directly, or over https)."};
    }
    const chain = await checkChain(data, bodies);
    const signed = await checkSignature(data);
    if (!chain.ok) {
      return {state: "broken", seq: chain.seq, text: `Broken: the hash chain fails at seq ${chain.seq}, the first ` +
        `bad seq (${chain.why}). What this page shows past it is not what was signed or stored.`};
    }
    const parts = data.private.length ? `, ${data.private.length} private parts match their commitments` : "";
    const intact = `the hash chain is intact (${data.events.length} events${parts})`;
    if (signed.state === "bad") {
      return {state: "broken", text: `Broken: the signature fails${signed.fingerprint ? " (key " +
        signed.fingerprint + ")" : ""}: ${signed.why}. Though ${intact}, someone changed this log after it ` +
        "was signed, or signed another."};
    }
    if (signed.state === "good") {
      return {state: "verified", text: `Verified: ${intact}, and its head is signed by key ${signed.fingerprint} ` +
        "(compare it with the key its publisher gives)."};
    }
    if (signed.state === "unchecked") {
      return {state: "unverified", text: `Unverified: ${intact}, but its signature by key ${signed.fingerprint} ` +
        `was not checked (${signed.why}). Check it with tourney replay verify --key.`};
    }
    return {state: "unverified", text: `Unverified: this log is not signed. Its hash chain is intact ` +
      `(${data.events.length} events${parts}), but anyone who changes a log can make its chain again: nothing ` +
      "here shows who published it. Ask its publisher for a signed log, and check it with tourney replay verify."};
  }

  const MARKS = {verified: "✔", unverified: "⚠", broken: "✘"};

  function showVerdict(out, verdict) {
    out.dataset.verdict = verdict.state;
    out.replaceChildren(h("div", {class: `verdict ${verdict.state}`, id: "verdict", role: "status"},
      h("span", {class: "mark", "aria-hidden": "true"}, MARKS[verdict.state] || "…"), " ", verdict.text),
    h("div", {class: "check note"}, "This page checks the chain and the signature only. That every move " +
      "was legal, every shuffle came from the seed and the result is right is checked by ",
      h("code", null, "tourney replay verify"), " on the JSON log, not by this page; the tables and sentences " +
      "were computed from the log when the page was made."));
  }

  // -- the viewer -----------------------------------------------------------------------------

  const VIEW_NAMES = {full: "everything (all hands)", spectator: "spectator"};
  const SPEEDS = [0.5, 1, 2, 4, 10];

  /** The step a page opens at: the table as dealt, just before the first seat decides (the last step
   * of a game no seat decided in). */
  function openingStep(steps) {
    const first = steps.findIndex(([actor]) => typeof actor === "number");
    return first < 0 ? steps.length - 1 : Math.max(0, first - 1);
  }

  function start() {
    const data = JSON.parse(document.getElementById("replay-data").textContent);
    const bodies = data.events.map(([body]) => { try { return JSON.parse(body); } catch (error) { return null; } });
    const views = decodeViews(data);
    const last = data.steps.length - 1;
    const game = games[data.game] || generic;
    const ui = {step: openingStep(data.steps), mode: data.views[0], speed: 1, timer: null, hashTimer: null,
      seenHash: location.hash};

    const seatName = (seat) => data.seats[seat]?.name ?? `seat ${seat}`;
    const seatLabel = (seat) => `${seatName(seat)} (${data.seats[seat]?.bot ?? "?"})`;
    const seatOf = (mode) => (mode.startsWith("seat:") ? Number(mode.slice(5)) : null);
    const canSee = (audience) => ui.mode === "full" || audience === "public" ||
      (Array.isArray(audience) && audience.includes(seatOf(ui.mode)));
    const phrase = (index, code) => (typeof index === "number" && data.phrases?.[index]) || code;

    // The page's parts, laid out once.
    const verifyBox = h("div", {class: "verify", id: "verify", "data-verdict": "pending"},
      h("div", {class: "verdict pending", id: "verdict", role: "status"}, "Checking the log…"));
    const viewSelect = h("select", {id: "view", "aria-label": "view", disabled: data.views.length < 2},
      data.views.map((mode) => h("option", {value: mode},
        mode.startsWith("seat:") ? `${seatLabel(seatOf(mode))}'s seat` : VIEW_NAMES[mode])));
    const table = h("div", {class: "table", id: "table"});
    const stepInfo = h("div", {class: "step-info", id: "step-info"});
    const result = h("div", {class: "result", id: "result"});
    const eventList = h("ol", {class: "events", id: "events"});
    const counter = h("span", {class: "counter", id: "counter"});
    const slider = h("input", {type: "range", min: 0, max: last, value: ui.step, id: "slider", "aria-label": "step"});
    const playButton = h("button", {id: "play", type: "button"}, "Play");
    const speedSelect = h("select", {id: "speed", "aria-label": "speed"},
      SPEEDS.map((speed) => h("option", {value: speed, selected: speed === 1}, `${speed}×`)));
    const button = (id, text, action) => h("button", {id, type: "button", on: {click: action}}, text);
    const controls = h("div", {class: "controls", id: "controls"},
      button("first", "First", () => go(0)), button("back", "Back", () => go(ui.step - 1)),
      playButton, button("next", "Next", () => go(ui.step + 1)), button("last", "Last", () => go(last)),
      slider, counter, h("label", null, "speed ", speedSelect));
    const app = document.getElementById("app");

    app.replaceChildren(
      h("header", {class: "top"},
        h("h1", null, data.title, " ", h("span", {class: "game-id"}, data.game_id)),
        h("ul", {class: "seats"}, data.seats.map((seat) => h("li", {class: `seat-chip seat-${seat.seat}`,
          title: `bot content hash ${seat.hash}`}, h("span", {class: "swatch"}), `${seat.name}: ${seat.bot}`))),
        h("label", {class: "view-switch"}, "view ", viewSelect)),
      verifyBox,
      controls,
      h("main", {class: "board"}, table,
        h("aside", {class: "side"}, stepInfo, result, eventList)));

    function actorLabel(actor) {
      if (typeof actor === "number") return seatLabel(actor);
      return {chance: "chance", setup: "setup", log: "the log", unchecked: "not checked"}[actor] || String(actor);
    }

    function sentence(seq) {
      const [, , told, secret] = data.events[seq];
      return secret !== undefined && bodies[seq] && canSee(bodies[seq].audience) ? secret : told;
    }

    function stepEvents(step) {
      const end = step < last ? data.steps[step + 1][1] : data.events.length;
      const seqs = [];
      for (let seq = data.steps[step][1]; seq < end; seq++) seqs.push(seq);
      return seqs;
    }

    let stepItems = [];
    function buildEventList() {
      stepItems = data.steps.map(([actor], step) => h("li", {class: "step", "data-step": step,
        on: {click: () => go(step)}},
        h("div", {class: "step-head"}, `step ${step} · ${actorLabel(actor)}`),
        stepEvents(step).map((seq) => h("div", {class: "event", title: `seq ${seq}: ${data.events[seq][0]}`},
          sentence(seq)))));
      eventList.replaceChildren(...stepItems);
    }

    function viewsFor(step) {
      const seat = seatOf(ui.mode);
      if (seat !== null) {
        const view = views.spectator[step] && views.seatView(step, seat);
        return {view, own: view ? {[seat]: view} : {}};
      }
      const own = {};
      if (ui.mode === "full" && views.spectator[step]) {
        for (const other of Object.keys(data.own)) own[other] = views.seatView(step, other);
      }
      return {view: views.spectator[step], own};
    }

    function drawStepInfo(step) {
      const [actor, first, action, legal, said] = data.steps[step];
      const lines = [h("div", {class: "actor"}, `step ${step}: ${actorLabel(actor)}`)];
      if (typeof actor === "number" && bodies[first]?.type !== "seat_forfeited") {
        const shown = canSee(bodies[first]?.audience ?? []);
        lines.push(h("div", {class: "action"}, "action: ", action !== null && shown
          ? h("span", {class: "said", title: action, "data-action": action}, phrase(said?.[0], action))
          : h("em", null, "hidden from this view")));
        if (legal !== null && canSee([actor])) {
          lines.push(h("div", {class: "legal"}, `legal actions (${legal.length}):`,
            h("ul", {class: "options"}, legal.map((option, i) => h("li", {title: option, "data-action": option,
              class: option === action ? "chosen" : null}, phrase(said?.[1]?.[i], option))))));
        }
      }
      stepInfo.replaceChildren(...lines);
    }

    function drawResult(step) {
      if (step !== last || !data.result) {
        result.replaceChildren();
        return;
      }
      const {ranking, reason, scores, forfeit} = data.result;
      const order = ranking.map((rank, seat) => seat).sort((a, b) => ranking[a] - ranking[b] || a - b);
      result.replaceChildren(h("div", {class: "result-title"}, `Result (${reason})`),
        h("ol", {class: "ranks"}, order.map((seat) => h("li", {class: `seat-${seat}`, "data-seat": seat},
          h("span", {class: "rank"}, `${ranking[seat]}.`), " ", seatLabel(seat), scores[seat] ? ` — ${scores[seat]}` : ""))),
        forfeit ? h("div", {class: "forfeit"}, `${seatLabel(forfeit.seat)} forfeited: ${forfeit.reason}`) : null);
    }

    /** Scroll the story, and only the story, to a step: never the page, whose controls must stay where the
     * reader is (below the table on a phone, the story is below the controls). */
    function showInList(item) {
      const top = item.offsetTop;
      const bottom = top + item.offsetHeight;
      if (top < eventList.scrollTop) eventList.scrollTop = top;
      else if (bottom > eventList.scrollTop + eventList.clientHeight) eventList.scrollTop = bottom - eventList.clientHeight;
    }

    const ownHash = () => `#step=${ui.step}` + (ui.mode === data.views[0] ? "" : `&view=${ui.mode}`);

    function draw() {
      const step = ui.step;
      const {view, own} = viewsFor(step);
      const context = {view, own, data, seatName, seatLabel, h, card, backs, zone};
      table.replaceChildren(view ? game.draw(context) : h("p", {class: "empty"}, "The table is not laid yet."));
      drawStepInfo(step);
      drawResult(step);
      counter.textContent = `step ${step} of ${last}`;
      slider.value = String(step);
      for (const item of eventList.querySelectorAll(".step.current")) item.classList.remove("current");
      stepItems[step].classList.add("current");
      showInList(stepItems[step]);
      // The address follows once stepping pauses: browsers limit how often it may be replaced. It is
      // replaced only if nobody asked for another step meanwhile (a new #step= whose hashchange has
      // not arrived yet): the latest step asked for always wins over the page's own update.
      clearTimeout(ui.hashTimer);
      ui.hashTimer = setTimeout(() => {
        if (location.hash !== ui.seenHash) {
          followHash();
          return;
        }
        if (location.hash !== ownHash()) history.replaceState(null, "", ownHash());
        ui.seenHash = location.hash;
      }, 150);
      // The page's own signal that a step is on screen (tests and scripts wait on it, never on time).
      app.dataset.drawn = `step=${step}&view=${ui.mode}`;
    }

    function go(step) {
      ui.step = Math.max(0, Math.min(last, Number.isFinite(step) ? Math.trunc(step) : 0));
      if (ui.step === last) pause();
      draw();
    }

    function setMode(mode) {
      if (!data.views.includes(mode) || mode === ui.mode) return;
      ui.mode = mode;
      viewSelect.value = mode;
      buildEventList();
    }

    function play() {
      if (ui.step === last) go(0);
      playButton.textContent = "Pause";
      const tick = () => {
        if (ui.step >= last) return pause();
        go(ui.step + 1);
        ui.timer = setTimeout(tick, 1000 / ui.speed);
      };
      ui.timer = setTimeout(tick, 1000 / ui.speed);
    }

    function pause() {
      clearTimeout(ui.timer);
      ui.timer = null;
      playButton.textContent = "Play";
    }

    /** Show what the address asks for (#step=N&view=V), and remember it as the address last seen. */
    function followHash() {
      ui.seenHash = location.hash;
      const params = new URLSearchParams(location.hash.slice(1));
      if (params.has("view")) setMode(params.get("view"));
      if (params.has("step")) go(Number(params.get("step")));
      else draw();
    }

    playButton.addEventListener("click", () => (ui.timer ? pause() : play()));
    slider.addEventListener("input", () => go(Number(slider.value)));
    speedSelect.addEventListener("change", () => { ui.speed = Number(speedSelect.value); });
    viewSelect.addEventListener("change", () => { setMode(viewSelect.value); draw(); });
    // A hashchange for an address already followed (its event late, after the page caught it) changes nothing.
    window.addEventListener("hashchange", () => { if (location.hash !== ui.seenHash) followHash(); });
    document.addEventListener("keydown", (event) => {
      if (event.target.closest?.("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
      const keys = {ArrowLeft: () => go(ui.step - 1), ArrowRight: () => go(ui.step + 1), Home: () => go(0),
        End: () => go(last), " ": () => (ui.timer ? pause() : play())};
      if (keys[event.key]) {
        event.preventDefault();
        keys[event.key]();
      }
    });

    buildEventList();
    followHash();
    judge(data, bodies).catch((error) => ({state: "broken", text: `Broken: the log could not be checked (${error}).`}))
      .then((verdict) => {
        showVerdict(verifyBox, verdict);
        if (verdict.state === "broken") {
          controls.classList.add("invalid");
          controls.prepend(h("strong", {class: "invalid-mark", id: "invalid-mark"}, "replaying an invalid log"));
          table.classList.add("invalid");
        }
      });
    // For scripts and tests: the current step, what is drawn, and the views as the page decoded them.
    window.tourneyReplay = {
      get step() { return ui.step; },
      get mode() { return ui.mode; },
      get drawn() { return app.dataset.drawn; },
      view: (step, mode) => (mode.startsWith("seat:") ? views.spectator[step] && views.seatView(step, seatOf(mode))
        : views.spectator[step]),
    };
  }

  /** A game this viewer has no drawing for: its view as a list of fields. */
  const generic = {
    draw({view, own, seatLabel}) {
      const rows = Object.entries(view).map(([key, value]) => h("tr", null, h("th", null, key),
        h("td", null, h("code", null, JSON.stringify(value)))));
      for (const [seat, mine] of Object.entries(own)) {
        for (const [key, value] of Object.entries(mine)) {
          if (JSON.stringify(view[key]) !== JSON.stringify(value)) {
            rows.push(h("tr", null, h("th", null, `${seatLabel(Number(seat))}: ${key}`),
              h("td", null, h("code", null, JSON.stringify(value)))));
          }
        }
      }
      return h("table", {class: "generic"}, h("tbody", null, rows));
    },
  };

  return {games, start, h, card, backs, zone};
})();
