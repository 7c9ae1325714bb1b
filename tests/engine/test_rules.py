"""The presets hold the decisions of RULES.md, and switches parse from records strictly."""

import dataclasses

import pytest

from engine.threefiveeight.rules import (
    PRESETS,
    Contract,
    Direction,
    FirstLead,
    KittyMode,
    Rotation,
    Rules,
    TargetsLayout,
    rules_from_json,
)


def test_four_presets_named_as_in_rules_md() -> None:
    assert set(PRESETS) == {"sergeant-major", "ucbessekiz", "online-18", "pagat"}
    assert all(r.name == n for n, r in PRESETS.items())


def test_preset_decisions() -> None:
    sm, uc, on, pg = (PRESETS[n] for n in ("sergeant-major", "ucbessekiz", "online-18", "pagat"))
    assert uc.direction is Direction.COUNTERCLOCKWISE and sm.direction is Direction.CLOCKWISE
    assert uc.targets_layout is TargetsLayout.BY_2C_THEN_ROTATE
    assert on.targets_layout is TargetsLayout.NEXT_OF_DEALER_8
    assert uc.rotation is Rotation.EIGHT_TO_PREVIOUS_IN_PLAY and sm.rotation is Rotation.EIGHT_TO_NEXT_IN_PLAY
    assert Contract.MISERE in on.contracts and Contract.NO_TRUMP in uc.contracts
    assert Contract.NO_TRUMP not in sm.contracts
    assert uc.pass_redeal and not sm.pass_redeal
    assert on.kitty_mode is KittyMode.PICKUP_THEN_DISCARD
    assert pg.first_lead is FirstLead.FIVE_PLAYER and sm.first_lead is FirstLead.DECLARER
    assert uc.must_overtake and not sm.must_overtake
    assert uc.af_period == 4 and sm.af_period == 0
    assert uc.twelve_trick_win and pg.twelve_trick_win and not sm.twelve_trick_win
    assert (sm.game_length, uc.game_length, on.game_length, pg.game_length) == (12, 12, 18, None)


def test_overrides_parse_and_reject_with_the_switch_named() -> None:
    changes = {"must_overtake": True, "game_length": 6, "direction": "counterclockwise"}
    rules = rules_from_json(PRESETS["pagat"], changes)
    assert rules.must_overtake and rules.game_length == 6 and rules.step == -1
    with pytest.raises(ValueError, match="unknown rule switch 'overtake'"):
        rules_from_json(PRESETS["pagat"], {"overtake": True})
    with pytest.raises(ValueError, match="'direction' must be one of"):
        rules_from_json(PRESETS["pagat"], {"direction": "left"})
    with pytest.raises(ValueError, match="true or false"):
        rules_from_json(PRESETS["pagat"], {"must_overtake": "yes"})


def test_targets_must_sum_to_sixteen() -> None:
    with pytest.raises(ValueError, match="sum to 16"):
        dataclasses.replace(Rules(), targets=(8, 5, 4))
