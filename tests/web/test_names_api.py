"""Look-alike names through the HTTP API: the upload route claims names by the library's normal form."""

from __future__ import annotations

from tests.web.test_api import RANDOM_BOT, upload


def test_an_upload_under_a_look_alike_name_is_refused_naming_the_name_it_reads_as(api, league):
    """Attack: bob uploads under `LEMUR-PRO`, `lemur_pro`, `Random-Bot` beside alice's `lemur-pro` and the league's
    own `random_bot`: each is 403 with the name it reads as; nothing of bob's is queued."""
    assert upload(api, league.tokens["alice"], RANDOM_BOT, bot="lemur-pro").status_code == 202
    for lookalike, taken in (("LEMUR-PRO", "lemur-pro"), ("lemur_pro", "lemur-pro"), ("Random-Bot", "random_bot")):
        refused = upload(api, league.tokens["bob"], RANDOM_BOT, bot=lookalike)
        assert refused.status_code == 403 and f"reads as '{taken}'" in refused.json()["detail"], refused.json()
    assert api.get("/api/me/submissions", token=league.tokens["bob"]).json()["total"] == 0
