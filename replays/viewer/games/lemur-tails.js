// Lemur Tails: draws the engine's view (docs/games/lemur-tails.md, "Views"). Cards are named by
// kind: W0..W9 and WJ white, B0..B9 and BJ black (J a joker); tails are 0w, 0b, 1w, 1b.
Tourney.games["lemur-tails"] = (() => {
  const {h, card, backs, zone} = Tourney;

  function tailCard(kind, extra) {
    const colour = kind[0] === "W" ? "white" : "black";
    const joker = kind[1] === "J";
    return card(joker ? "★" : kind.slice(1), `${colour} ${extra || ""}`, `${colour} ${joker ? "joker" : kind.slice(1)}`);
  }

  function tail(view, name) {
    const ring = name.endsWith("w") ? "white" : "black";
    const cards = view.tails[name];
    return zone(`${ring}-ring tail ${name}: ${cards.length}`, h("span", {class: `ring ${ring}`, title: `${ring} ring`}),
      cards.map((kind) => tailCard(kind, "small")));
  }

  function seat(view, mine, index, seatLabel) {
    const lemurs = view.sun_lemurs[index];
    const lengths = ["w", "b"].map((ring) => view.tails[`${index}${ring}`].length).sort((a, b) => a - b);
    return h("section", {class: `seat seat-${index}` + (view.turn === index ? " to-act" : ""), "data-seat": index},
      h("div", {class: "seat-head"},
        h("span", null, seatLabel(index), view.turn === index ? h("span", {class: "tag"}, "to act") : null),
        h("span", {class: "score"}, `shortest tail ${lengths[0]}`)),
      tail(view, `${index}w`), tail(view, `${index}b`),
      h("div", {class: "sun"}, `Sun lemurs: ${lemurs.present} present, ${lemurs.empty} empty`),
      zone("Hand", mine ? mine.hand.map((kind) => tailCard(kind)) : backs(view.hand_sizes[index], "cards in hand")),
      mine && mine.taken && !view.taken ? zone("Taken blind", tailCard(mine.taken)) : null);
  }

  function draw({view, own, seatLabel}) {
    const series = view.series?.tail ? `a series of ${view.series.length} on ${view.series.tail}` : "no series";
    const middle = h("div", {class: "middle"},
      zone("Deck", backs(view.deck_size, "cards in the deck"),
        h("span", {class: "info"}, view.end_card_drawn ? "End card drawn: last round" : "End card in the deck")),
      zone("Market", view.market.map((kind) => tailCard(kind))),
      zone("Turn", h("div", {class: "line"}, `phase ${view.phase}, turns played ${view.turns_played.join(" / ")}`),
        h("div", {class: "line"}, `${view.added_this_turn} added this turn, ${series}`),
        h("div", {class: "line"}, `${view.sun_lemurs_aside} Sun lemurs set aside`)),
      view.taken ? zone("Taken by a Sun lemur", tailCard(view.taken)) : null,
      zone("Discard pile", view.discard_pile.map((kind) => tailCard(kind, "small"))));
    return h("div", null, middle,
      h("div", {class: "seats-row"}, view.hand_sizes.map((_, index) => seat(view, own[index], index, seatLabel))));
  }

  return {draw};
})();
