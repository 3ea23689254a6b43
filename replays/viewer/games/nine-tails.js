// Nine Tails: draws the engine's view (docs/games/nine-tails.md, "Views"). Cards are named by id:
// F- starting fox, W- wild fox, S- study, T- tail card; trickery cards by their trick's name.
Tourney.games["nine-tails"] = (() => {
  const {h, card, backs, zone} = Tourney;
  const KINDS = {F: "starting fox", W: "wild fox", S: "study", T: "tail card"};

  function wilds(name, extra) {
    return card(name, `wide ${extra || ""}`, `${KINDS[name[0]] || "card"} ${name}`);
  }

  function trick(name) {
    return card(name.replace(/-/g, " "), "wide trick", `trickery card: ${name}`);
  }

  function fox(shown) {
    const slots = Array.from(shown.slots, (symbol, i) => h("span", {class: "slot" + (shown.exhausted[i] ? " exhausted" : ""),
      title: `slot ${i}: ${symbol === "*" ? "any" : symbol}${shown.exhausted[i] ? ", exhausted" : ""}`}, symbol));
    return h("div", {class: "fox", title: `${shown.kind} ${shown.card}`},
      h("div", {class: "fox-name"}, shown.card, " ", h("span", {class: "tails"}, `${shown.tail_count}`), " tails"),
      h("div", {class: "slots"}, slots),
      shown.studies.length ? h("div", {class: "zone-cards"}, shown.studies.map((c) => wilds(c, "small"))) : null,
      shown.tails.length ? h("div", {class: "zone-cards"}, shown.tails.map((c) => wilds(c, "small"))) : null);
  }

  function seat(view, mine, index, seatLabel) {
    const acting = view.decider === index;
    const tags = [view.active === index ? h("span", {class: "tag"}, "active") : null,
      acting ? h("span", {class: "tag"}, "to decide") : null];
    return h("section", {class: `seat seat-${index}` + (acting ? " to-act" : ""), "data-seat": index},
      h("div", {class: "seat-head"}, h("span", null, seatLabel(index), tags),
        h("span", {class: "score"}, `${view.ascended[index]} ascended`)),
      zone("Foxes", view.foxes[index].map(fox)),
      view.ascended_cards[index] ? zone("Ascended Fox cards", backs(view.ascended_cards[index], "Ascended Fox cards")) : null,
      zone("Trickery hand", mine ? mine.hand.map(trick) : backs(view.hand_sizes[index], "trickery cards")));
  }

  function draw({view, own, seatLabel}) {
    const inPlay = [];
    if (view.trick) inPlay.push(h("div", {class: "line"}, `${seatLabel(view.trick.seat)} plays ${view.trick.name}` +
      (view.trick.fox ? ` with ${view.trick.fox}` : "")));
    if (view.paying) inPlay.push(h("div", {class: "line"}, `${view.paying.fox} pays ${view.paying.cost}`));
    if (view.befuddle) inPlay.push(h("div", {class: "line"}, `befuddling ${view.befuddle.fox}: ${view.befuddle.left} left`));
    const middle = h("div", {class: "middle"},
      zone("Turn", h("div", {class: "line"}, `phase ${view.phase}, turn ${view.turns} of ${view.move_cap}`),
        h("div", {class: "line"}, `${view.goal} ascended foxes win`), inPlay),
      zone("Supply", h("span", {class: "info"}, `${view.pile} counters`),
        backs(view.decks.starting, "starting foxes"), backs(view.decks.wilds, "Wilds cards"),
        backs(view.decks.trickery, "trickery cards"), h("span", {class: "info"}, `${view.ascended_stack} Ascended Foxes`)),
      view.revealed.length ? zone("Revealed", view.revealed.map((c) => wilds(c))) : null,
      view.held ? zone("Being placed", wilds(view.held)) : null,
      zone("Village", view.village.map((c) => wilds(c, "small"))),
      zone("Trickery discards", view.discard.slice(-6).map(trick),
        view.discard.length > 6 ? h("span", {class: "info"}, `and ${view.discard.length - 6} more`) : null));
    return h("div", null, middle,
      h("div", {class: "seats-row"}, view.foxes.map((_, index) => seat(view, own[index], index, seatLabel))));
  }

  return {draw};
})();
