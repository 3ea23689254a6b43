// Parts of a page kept fresh without a reload (docs/web.md, "Live updates"): the ladder page's
// leaderboard, a submission's state, the account page's lists. Each such element names its fragment:
//   data-live="URL"   the fragment's route, which answers 304 while the ETag sent still holds
//   data-etag="TAG"   the ETag the page was drawn at
//   data-every="S"    seconds between two questions (the server's TOURNEY_POLL_SECONDS)
//   data-private      send the session cookie (an owner's fragment); without it, no cookie is sent
// After each unchanged answer the wait grows by half, up to six times data-every; a change puts it back.
// Nothing is asked while the page is hidden (another tab, a locked phone); when it shows again, at once.
// A fragment holding an element marked data-live-end is final (a validation that ended): asking stops,
// as it does on an answer saying the fragment is not ours to see (a 4xx: signed out meanwhile), but for
// 408 and 429, which only ask to wait.
// The element tells its state for anyone looking: data-live-state is polling, paused (hidden page) or
// ended; data-wait the current wait in ms; data-refreshed how many times its content was replaced.
// The pages work without this script: reload them to see what changed.
"use strict";
(function () {
  if (!window.fetch) return;
  var boxes = document.querySelectorAll("[data-live]");
  for (var i = 0; i < boxes.length; i++) follow(boxes[i]);

  function follow(box) {
    var url = box.getAttribute("data-live");
    var etag = box.getAttribute("data-etag");
    var every = 1000 * (Number(box.getAttribute("data-every")) || 10);
    var longest = 6 * every;
    var credentials = box.hasAttribute("data-private") ? "same-origin" : "omit";
    var wait = every;
    var timer = null;
    var asking = false;
    var refused = false;

    function ended() {
      return refused || box.querySelector("[data-live-end]") !== null;
    }

    function show(state) {
      box.setAttribute("data-live-state", state);
      box.setAttribute("data-wait", String(wait));
    }

    function later() {
      clearTimeout(timer);
      timer = null;
      if (ended()) return show("ended");
      if (document.visibilityState === "hidden") return show("paused");
      show("polling");
      timer = setTimeout(ask, wait);
    }

    function swap(html) {
      // Keep the reader's choices inside the part (the "all columns" boxes) across the swap.
      var before = box.querySelectorAll("input[type=checkbox]");
      var checked = [];
      for (var i = 0; i < before.length; i++) checked.push(before[i].checked);
      box.innerHTML = html;  // the server's own escaped fragment
      var after = box.querySelectorAll("input[type=checkbox]");
      for (var j = 0; j < after.length && j < checked.length; j++) after[j].checked = checked[j];
      box.setAttribute("data-refreshed", String(Number(box.getAttribute("data-refreshed") || 0) + 1));
    }

    function ask() {
      timer = null;
      if (ended() || document.visibilityState === "hidden") return later();
      asking = true;
      var headers = etag ? { "If-None-Match": etag } : {};
      fetch(url, { headers: headers, cache: "no-store", credentials: credentials, redirect: "error" })
        .then(function (response) {
          if (response.status === 200) {
            etag = response.headers.get("ETag") || etag;
            return response.text();
          }
          if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
            refused = true;  // signed out, or gone: asking again will not change that
          } else {
            wait = Math.min(longest, Math.round(wait * 1.5));  // unchanged, or the server is busy
          }
          return null;
        })
        .then(function (html) {
          if (html !== null) {
            swap(html);
            wait = every;
          }
        })
        .catch(function () {
          wait = Math.min(longest, Math.round(wait * 1.5));  // the server is restarting: ask again later
        })
        .then(function () {
          asking = false;
          later();
        });
    }

    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "hidden") {
        clearTimeout(timer);
        timer = null;
        if (!ended()) show("paused");
      } else if (!asking && !ended()) {
        clearTimeout(timer);
        wait = every;
        ask();  // what changed while the page was hidden, at once
      }
    });
    later();
  }
})();
