// The ladder page's leaderboard, kept fresh: every few seconds ask the server whether it changed
// (If-None-Match with the ETag it was drawn at: an unchanged leaderboard costs one 304), and
// put the new one in place. The page works without this script: reload it to see new games.
"use strict";
(function () {
  var box = document.querySelector("[data-live]");
  if (!box || !window.fetch) return;
  var etag = box.getAttribute("data-etag");
  var every = 1000 * (Number(box.getAttribute("data-every")) || 10);
  function poll() {
    fetch(box.getAttribute("data-live"), { headers: { "If-None-Match": etag }, cache: "no-store", credentials: "omit" })
      .then(function (response) {
        if (response.status !== 200) return null;
        etag = response.headers.get("ETag") || etag;
        return response.text();
      })
      .then(function (html) {
        if (html !== null) {
          box.innerHTML = html;  // the server's own escaped fragment
          box.setAttribute("data-refreshed", String(Number(box.getAttribute("data-refreshed") || 0) + 1));
        }
      })
      .catch(function () { /* the server is restarting: ask again next time */ })
      .then(function () { setTimeout(poll, every); });
  }
  setTimeout(poll, every);
})();
