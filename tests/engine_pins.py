"""What the rules engine does in seeded self-play, pinned as one digest per table.

For each table below (every preset at two to four seats, and seeded random mixes of options),
the lively random players of ``table.analysis.selfplay`` play a few rounds. Before every action
the trace records the legal actions and the out-of-turn actions listed (in their order), and a
few arbitrary actions tried on a copy with their verdicts and reasons; then the action taken and
its events. ``engine_pins.json`` holds each trace's SHA-256, and ``test_engine_pins.py``
compares: a change to the engine meant to change nothing (a refactoring, a speed-up) keeps them
all. A change of the rules on purpose rewrites them with ``python tests/engine_pins.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINS = Path(__file__).resolve().parent / "engine_pins.json"
ROUNDS_PER_TABLE = 4
RANDOM_MIXES = 40
TRIES_PER_STEP = 3
# The options the random mixes draw from, in this order: the ones there were when the traces
# were pinned (an option added later is covered by its scenarios and the property tests, and
# drawing it too would change every mix after it).
PINNED_OPTIONS = (
    "deck", "hand_size", "dealer_draw_actions", "first_reverse", "first_wild", "first_special",
    "draw", "draw_by_choice", "two_player_reverse_is_skip", "wild_draw_four",
    "shuffle_hands_last_card", "customizable_effect", "challenge", "challenge_success",
    "challenge_penalty", "uno_penalty", "uno_catchers", "uno_enforcement", "false_catch_penalty",
    "next_dealer", "scoring", "target", "rounds", "eliminate", "doubling", "two_card_play",
    "stacking", "multi_play", "jump_in", "action_finish", "first_action", "seven_o",
    "wild_keeps_symbol", "first_player", "chin", "don", "false_don_penalty",
    "musician_color_call", "musician_reverse_back", "musician_skip_back", "musician_panpakapan",
    "musician_same_color_don", "musician_zero_don", "musician_tenhou", "musician_renchan",
    "musician_eight_renchan", "musician_rendon",
)
# The values of a pinned option the mixes draw from, where values were added later (for the
# same reason).
PINNED_CHOICES: dict[str, tuple[str, ...]] = {
    "challenge_success": ("offender-draws", "take-back"),
}


def tables() -> Iterator[tuple[str, dict[str, object], int]]:
    """(name, options as make_options arguments, players) of every pinned table."""
    from table.rules import PRESETS, SPECS

    for preset in sorted(PRESETS):
        for players in (2, 3, 4):
            yield f"{preset}-{players}p", {"preset": preset}, players
    rng = random.Random(14)
    for mix in range(RANDOM_MIXES):
        values: dict[str, object] = {"preset": rng.choice(sorted(PRESETS))}
        for name in PINNED_OPTIONS:
            spec = SPECS[name]
            if rng.random() < 0.5:
                continue
            if isinstance(spec.default, bool):
                values[name] = rng.random() < 0.5
            elif isinstance(spec.default, int):
                values[name] = rng.randint(spec.low, min(spec.high, spec.low + 12))
            else:
                values[name] = rng.choice(PINNED_CHOICES.get(name, spec.choices))
        players = rng.randint(2, 6)
        values["hand_size"] = max(1, min(int(str(values.get("hand_size", 7))), 7))
        values["target"] = 0
        values["rounds"] = 3
        yield f"mix-{mix:02d}-{players}p", values, players


def _event(e: object) -> str:
    kind, player, target, card, color, count, reason = e  # type: ignore[misc]
    return "|".join(
        str(x)
        for x in (
            getattr(kind, "value", kind),
            player,
            target,
            card.code if card is not None else None,
            color.value if color is not None else None,
            count,
            reason,
        )
    )


def _action(a: object) -> str:
    from dataclasses import fields

    parts = [type(a).__name__]
    for f in fields(a):  # type: ignore[arg-type]
        v = getattr(a, f.name)
        if isinstance(v, tuple):
            v = ",".join(c.code for c in v)
        elif hasattr(v, "code"):
            v = v.code
        elif hasattr(v, "value"):
            v = v.value
        parts.append(f"{f.name}={v}")
    return " ".join(parts)


def _tries(rng: random.Random, s: object) -> list[object]:
    """A few arbitrary actions (mostly illegal) for the state ``s``."""
    from table.cards import COLORS, EDITIONS
    from table.rules import (
        CallUno,
        Catch,
        Challenge,
        ChooseColor,
        Don,
        Draw,
        Pass,
        Play,
        Swap,
    )

    faces = sorted({c.code for counts in EDITIONS.values() for c in counts})
    from table.cards import parse_card

    n = s.n  # type: ignore[attr-defined]
    out: list[object] = []
    for _ in range(TRIES_PER_STEP):
        seat = rng.randrange(n)
        other = rng.randrange(n)
        hand = s.hands[seat].known  # type: ignore[attr-defined]
        card = rng.choice(hand) if hand and rng.random() < 0.7 else parse_card(rng.choice(faces))
        kind = rng.randrange(10)
        if kind < 4:
            cards = (card,) if rng.random() < 0.8 else (card, card)
            color = rng.choice(COLORS) if card.is_wild and rng.random() < 0.8 else None
            out.append(Play(seat, cards, color))
        else:
            out.append(
                (
                    Draw(seat),
                    Pass(seat),
                    ChooseColor(seat, rng.choice(COLORS)),
                    CallUno(seat),
                    Catch(seat, other),
                    Challenge(seat) if rng.random() < 0.5 else Don(seat),
                    Swap(seat, other),
                )[kind - 4]
            )
    return out


def trace(options: dict[str, object], players: int, seed: int) -> str:
    """The SHA-256 of the trace of one table."""
    from table.analysis.selfplay import RandomTable
    from table.rules import Phase, apply, apply_in_place, make_options, new_game, next_round
    from table.rules import legal_actions as legal
    from table.rules.legal import out_of_turn_actions

    values = dict(options)
    preset = str(values.pop("preset"))
    table = RandomTable(make_options(preset, **values), players, seed)
    rng = random.Random(seed)
    digest = hashlib.sha256()

    def put(line: str) -> None:
        digest.update(line.encode())
        digest.update(b"\n")

    s, events = new_game(table.options, table.names, table.dealer(), table.deal())
    for _ in range(ROUNDS_PER_TABLE):
        put("round " + " ".join(map(_event, events)))
        steps = 0
        while s.phase is Phase.PLAY and steps < 3000:
            put("chance " + " ".join(map(_event, table.supply_chance(s))))
            listed = legal(s)
            put("legal " + "; ".join(map(_action, listed)))
            put("late " + "; ".join(map(_action, out_of_turn_actions(s))))
            for tried in _tries(rng, s):
                step = apply(s, tried)  # type: ignore[arg-type]
                put(f"try {_action(tried)} -> {step.verdict} {step.reason}")
            action = table.choose(s)
            if action is None:
                break
            put(f"do {_action(action)} -> " + " ".join(map(_event, apply_in_place(s, action))))
            late = table.out_of_turn(s)
            if late is not None:
                put(f"late {_action(late)} -> " + " ".join(map(_event, apply_in_place(s, late))))
            steps += 1
        put("chance " + " ".join(map(_event, table.supply_chance(s))))
        put(f"end {s.phase.value} {s.winner} {s.scores} {[len(h) for h in s.hands]}")
        if s.phase is not Phase.ROUND_OVER:
            break
        s, events = next_round(s, table.deal(s))
    return digest.hexdigest()


def compute() -> dict[str, str]:
    return {name: trace(options, players, 1) for name, options, players in tables()}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    PINS.write_text(json.dumps(compute(), indent=1) + "\n", encoding="utf-8")
    print(f"pinned {PINS.name}")
