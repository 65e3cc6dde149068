"""A text agent: the seat's view as JSON and prose, a move's name back.

    python examples/text_agent.py --games 40

``TextObservations`` serves each seat its information state as JSON and in words, with
the legal moves by name; ``TextAgent`` hands that to any *reader* and turns the name it
answers back into an action. Here the reader is a stand-in for a language model (it
answers the last legal move): replace ``ask_model`` with a call to your model.
"""

from __future__ import annotations

import argparse
import json

from grove_env import grove_v1
from grove_env.agents.arena.tournament import run_tournament
from grove_env.agents.scripted.text_agent import TextAgent
from grove_env.text_mode import parse_move
from grove_env.wrappers import TextObservations


def ask_model(prompt: str) -> str:
    """Stand-in for a language model: answers the last move the prompt lists."""
    listed = [line[4:] for line in prompt.splitlines() if line.startswith("  - ")]
    return listed[-1]


def reader(view_json: str, prose: str, moves: list[str]) -> str:
    """Build the prompt, ask the model, and ask again once if its answer is no move."""
    prompt = f"You play In a Grove. Your view as JSON:\n{view_json}\n{prose}"
    answer = ask_model(prompt + "\nAnswer with one legal move, exactly as written.")
    if answer.strip().lower() not in moves:
        answer = ask_model(prompt + f"\n{answer!r} is not a legal move. Choose again.")
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description="A text agent at a table of four.")
    parser.add_argument("--games", type=int, default=40, help="games of the tournament")
    args = parser.parse_args()

    # What a seat is shown: the JSON view (schema "grove-observation", version 1) and prose.
    env = TextObservations(grove_v1.env(num_players=4, rules="classic"))
    env.reset(seed=0)
    seen = env.observe(env.agent_selection)
    view = json.loads(seen["json"])
    print("JSON fields:", ", ".join(sorted(view)))
    print("legal moves:", view["legal_moves"])
    print(seen["text"])
    env.step("leave slot 1 unseen")  # a move is taken by its name
    try:
        parse_move("accuse the gardener")
    except ValueError as err:
        print("a bad reply is one line:", err)

    # The reader plays a tournament like any agent (a factory: seed -> agent).
    result = run_tournament(
        [lambda seed: TextAgent(reader, name="model"), "random", "random", "random"],
        rules="classic", num_players=4, games=args.games,
    )  # fmt: skip
    print(result.table())


if __name__ == "__main__":
    main()
