"""Levels people pick a bot by: easy, normal and hard are the random, greedy and strong bots, and the expert bot
above them goes by its name, on the command line, in the gateway's API and on the new-game form, named in every
language; and `zioncheck simulate` gives each win rate with its 95% interval."""
import json
import re
from pathlib import Path

import msgspec
import pytest

from zioncheck.application.simulation import wilson
from zioncheck.cli.options import CommandFailed, seat_bots
from zioncheck.cli.simulate_cmd import results_table
from zioncheck.contracts.languages import LANGUAGES
from zioncheck.services.gateway.openapi import document
from zioncheck.services.gateway.wire import NewGame, seated

ROOT = Path(__file__).parents[1]
STATIC = ROOT / "services" / "gateway" / "static"


def test_the_levels_easy_normal_and_hard_seat_the_random_greedy_and_strong_bots():
    assert seat_bots("easy,normal,hard", 3) == ["random", "greedy", "strong"]


def test_a_bot_named_by_its_name_is_seated_as_before_and_levels_mix_with_names():
    assert seat_bots("strong,greedy", 4) == ["strong", "greedy", "strong", "greedy"]
    assert seat_bots("hard, random", 2) == ["strong", "random"]


def test_a_level_there_is_not_is_refused_naming_the_levels():
    levels = r"easy \(random\), normal \(greedy\), hard \(strong\)"
    with pytest.raises(CommandFailed, match=rf"unknown bot 'master'.*{levels}"):
        seat_bots("master", 2)


def test_the_expert_bot_is_seated_by_its_name_on_the_command_line_and_by_the_gateway():
    assert seat_bots("expert,hard", 3) == ["expert", "strong", "expert"]
    body = b'{"players": 2, "seats": ["person", "expert"]}'
    assert seated(msgspec.json.decode(body, type=NewGame)).seats == ["person", "expert"]


def test_a_new_game_may_name_a_seat_by_its_level_and_the_gateway_seats_that_levels_bot():
    body = b'{"players": 4, "seats": ["person", "easy", "normal", "hard"]}'
    assert seated(msgspec.json.decode(body, type=NewGame)).seats == ["person", "random", "greedy", "strong"]


def test_the_api_document_offers_the_levels_for_a_new_games_seats():
    choices = document()["components"]["schemas"]["NewGame"]["properties"]["seats"]["items"]["enum"]
    assert {"easy", "normal", "hard", "greedy", "random", "strong", "expert", "person"} == set(choices)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_new_game_form_offers_easy_normal_hard_and_expert_in_every_language(language):
    form = (STATIC / "index.js").read_text()
    assert re.search(r'CHOICES = \["person", "easy", "normal", "hard", "expert"\]', form)
    said = (STATIC / "words.js").read_text()
    catalogue = json.loads((ROOT / "contracts" / "words" / f"{language}.json").read_text())
    for level in ("easy", "normal", "hard", "expert"):
        key = f"web.bot{level.title()}"
        assert f'{level}: say("{key}")' in said
        assert catalogue[key].strip()


def test_simulate_gives_each_win_rate_with_its_95_percent_wilson_interval():
    table = results_table(["strong", "greedy"], [30.0, 10.0], [2000, 6000], 40)
    assert re.search(r"0  strong\s+30\.0\s+75\.0%\s+59\.8–85\.8%", table), table
    assert re.search(r"greedy\s+1\s+10\.0\s+25\.0%\s+14\.2–40\.2%", table), table
    assert "a win shared among the seats tied on the lowest total" in table


def test_wilsons_interval_stays_within_zero_and_one_and_narrows_with_more_games():
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    few, many = wilson(20, 40), wilson(200, 400)
    assert many[1] - many[0] < few[1] - few[0]
