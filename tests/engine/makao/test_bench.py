"""The benchmark's contract with ``cardtable bench engine`` (its shape, not its speed)."""

from engine.makao.bench import measure


def test_measure_reports_turns_seconds_rate_and_games() -> None:
    result = measure(0.05, seed=1)
    assert {"turns", "seconds", "turns_per_second", "games"} <= set(result)
    assert result["games"] >= 1 and result["turns"] > 0
    assert result["turns_per_second"] > 0
