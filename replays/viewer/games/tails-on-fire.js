// Tails on Fire: draws the engine's view (docs/games/tails-on-fire.md, "Views"). Cards are ints:
// 1-9 numbered opossums and fire cards, 0 the trickster (+1), which shows the number below plus one.
Tourney.games["tails-on-fire"] = (() => {
  const {h, card, backs, zone} = Tourney;

  function opossum(value, number, classes) {
    if (value !== 0) return card(value, classes, `opossum ${value}`);
    return [card("+1", classes, number ? `trickster, showing ${number}` : "trickster"), number ? h("span", {class: "info"}, `=${number}`) : null];
  }

  const flames = (count) => `${count} flame${count === 1 ? "" : "s"}`;

  function stack(pile) {
    return h("div", {class: "stack", title: `fire stack showing ${pile.number}: ${flames(pile.flames)}`},
      opossum(pile.card, pile.number, ""), pile.fire.map((fire) => card(fire, "fire small", `fire card ${fire}`)),
      h("span", {class: "flames"}, flames(pile.flames)));
  }

  function seat(view, mine, player, index, seatLabel) {
    const tags = [view.leader === index ? h("span", {class: "tag"}, "leads") : null,
      view.turn === index ? h("span", {class: "tag"}, "to act") : null];
    const hand = mine
      ? [zone("Hand (den)", mine.hand.map((c) => opossum(c, 0, ""))),
        zone("Chosen", mine.chosen === null ? backs(player.chosen_size, "chosen opossums (not in this log)")
          : mine.chosen.map((c) => opossum(c, 0, "chosen")))]
      : [zone("Hand", backs(player.hand_size, "opossums in hand"),
        player.chosen_size ? backs(player.chosen_size, "chosen opossums") : null)];
    return h("section", {class: `seat seat-${index}` + (view.turn === index ? " to-act" : ""), "data-seat": index},
      h("div", {class: "seat-head"}, h("span", null, seatLabel(index), tags),
        h("span", {class: "score"}, flames(player.flames))),
      zone("Bonfire and fire stacks", card(player.bonfire, "bonfire", `bonfire opossum ${player.bonfire}: 1 flame`),
        player.stacks.map(stack)),
      zone("Exhausted", player.exhausted.map((c) => opossum(c, 0, "dim"))),
      hand,
      player.to_choose ? h("div", {class: "info"}, `${player.to_choose} still to choose`) : null);
  }

  function draw({view, own, seatLabel}) {
    const offered = view.phase === "hunt" && !view.discard.length ? ` (${view.numbers_offered} offered)` : "";
    const middle = h("div", {class: "middle"},
      zone("Iguana pile", view.iguana.size ? card(view.iguana.top, "fire", `fire card ${view.iguana.top} on top`) : null,
        h("span", {class: "info"}, `${view.iguana.size} left`)),
      zone("Discard pile", view.discard.map((played) => played.owner === "rogue"
        ? card(played.card, "rogue", `the Rogue's ${played.card}`)
        : opossum(played.card, played.number, `owned seat-${played.owner}`))),
      zone("The Hunt", h("div", {class: "line"}, `round ${view.round}, ${view.phase}`),
        h("div", {class: "line"}, `starting number ${view.starting_number}${offered}`),
        h("div", {class: "line"}, `turns ${view.turns} of ${view.move_cap}`)),
      view.rogue ? zone("The Rogue", backs(view.rogue.deck_size, "cards in the rogue deck"),
        view.rogue.reserve.map((c) => card(c, "rogue", `reserve ${c}`))) : null,
      view.boxed.length ? zone("Out of the game", view.boxed.map((c) => card(c, "fire dim", `fire card ${c}`))) : null);
    return h("div", null, middle,
      h("div", {class: "seats-row"}, view.players.map((player, index) => seat(view, own[index], player, index, seatLabel))));
  }

  return {draw};
})();
