#!/usr/bin/env bash
# The records behind the docs' results and benchmarks pages, at sizes a shared 2-core
# machine runs in about a quarter of an hour; then the pages are rewritten from them.
# Run from the repository root with the project's environment first on PATH
# (PATH=.venv/bin:$PATH). Each line may be run alone; a record is replaced, never merged.
# Set ONLY=<kind> (gauntlet, nashconv, training, benchmark, sweeps, bestresponse) to
# record one kind.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=docs/results/data
rec() { kind=$1 name=$2; shift 2; [[ -z "${ONLY:-}" || "$ONLY" == "$kind" ]] || return 0
        python scripts/record_result.py --kind "$kind" "$DATA/$kind/$name.json" -- "$@"; }

rec gauntlet heuristic-all-tables grove-gauntlet --agent heuristic --rules all --players all \
    --games 2000 --seed 0 --workers 2 --json {json}

for rules in classic revised; do
    for agent in random greedy heuristic cfr cfr-round; do
        rec nashconv "$rules-2p-round-$agent" python -m grove_env.analysis nashconv \
            --rules "$rules" --players 2 --agent "$agent" --json
    done
    for agent in random heuristic; do
        rec nashconv "$rules-3p-round-$agent" python -m grove_env.analysis nashconv \
            --rules "$rules" --players 3 --agent "$agent" --json
    done
done
# the whole game, exact at 2 and 3 players: random, the heuristic, the zoo and cfr side by side
for table in revised-2p classic-2p revised-3p; do
    rules=${table%-*} players=${table#*-}; players=${players%p}
    for agent in random heuristic "zoo:$table" cfr; do
        rec nashconv "$table-game-${agent%%:*}" python -m grove_env.analysis nashconv \
            --rules "$rules" --players "$players" --agent "$agent" --whole-game --json
    done
done
rec nashconv revised-2p-game-cfr-round python -m grove_env.analysis nashconv \
    --rules revised --players 2 --agent cfr-round --whole-game --json

rec nashconv classic-3p-game-random python -m grove_env.analysis nashconv \
    --rules classic --players 3 --agent random --whole-game --json  # about 90 s alone

for agent in random heuristic zoo:classic-4p; do
    rec nashconv "classic-4p-round-${agent%%:*}" python -m grove_env.analysis nashconv \
        --rules classic --players 4 --agent "$agent" --json
done
# learned best responses, lower bounds (about 12 minutes each): checked where the exact
# figure exists (revised 3p whole game, classic 4p one round), the measure beyond it
# (the records without overlap=true in their line ran before the overlap was the best
# response's default, in one process: add --set overlap=false to run them as they ran)
br() { rec bestresponse "$1" python -m grove_env.training.bestresponse --eval-games 10000 \
       --json --runs-root runs/bestresponse --set progress=false "${@:2}"; }
for agent in random heuristic zoo:classic-4p; do
    br "classic-4p-round-${agent%%:*}" --rules classic --players 4 --agent "$agent" \
        --steps 6e6 --seconds 480 --exact
done
br classic-4p-round-zoo-840s --rules classic --players 4 --agent zoo:classic-4p \
    --steps 3e7 --seconds 840 --exact --eval-games 20000  # nearly the 15-minute budget
br classic-4p-round-zoo-advice --rules classic --players 4 --agent zoo:classic-4p \
    --steps 3e7 --seconds 840 --exact --eval-games 20000 --set features=advice --set overlap=true
for agent in heuristic zoo:revised-3p; do
    br "revised-3p-game-${agent%%:*}" --rules revised --players 3 --agent "$agent" \
        --whole-game --steps 3e7 --seconds 720
done
br revised-3p-game-random --rules revised --players 3 --agent random --whole-game \
    --steps 3e7 --seconds 240
br revised-3p-game-heuristic-imitate --rules revised --players 3 --agent heuristic \
    --whole-game --steps 3e7 --seconds 720 --set imitate=heuristic  # warm start: its moves
br revised-3p-game-zoo-advice --rules revised --players 3 --agent zoo:revised-3p --whole-game \
    --steps 3e7 --seconds 720 --set features=advice --set overlap=true  # the heuristic's search as input
br revised-3p-game-heuristic-imitate-overlap --rules revised --players 3 --agent heuristic \
    --whole-game --steps 3e7 --seconds 720 --set imitate=heuristic --set overlap=true
br revised-4p-game-zoo --rules revised --players 4 --agent zoo:revised-4p --whole-game \
    --steps 3e7 --seconds 600
# the whole game beyond 3 players, 4 minutes of training a table: the cards' `≥ x` cells
br revised-5p-game-zoo --rules revised --players 5 --agent zoo:revised-5p --whole-game \
    --steps 3e7 --seconds 240
for agent in heuristic random; do
    for table in revised-4p revised-5p classic-4p; do
        rules=${table%-*} players=${table#*-}; players=${players%p}
        br "$table-game-$agent" --rules "$rules" --players "$players" --agent "$agent" \
            --whole-game --steps 3e7 --seconds 240
    done
done
br classic-4p-game-zoo --rules classic --players 4 --agent zoo:classic-4p --whole-game \
    --steps 3e7 --seconds 240
# classic 3p: the exact whole game of a policy that reads the counts is hours (141,170 states)
for agent in heuristic zoo:classic-3p; do
    br "classic-3p-game-${agent%%:*}" --rules classic --players 3 --agent "$agent" \
        --whole-game --steps 3e7 --seconds 240
done
# the league: a fresh games file (a kept one would be resumed, and only its new games timed)
rm -f docs/results/league/classic-4p-games.json
rec league classic-4p python -m grove_env.agents.cli.league --rules classic --players 4 \
    --games 4000 --seed 0 --results docs/results/league/classic-4p-games.json --json {json}

rec training smoke-16k python train.py --config configs/smoke.yaml --set run_dir={run} \
    --set total_timesteps=16384 --set eval_every=4096 --set final_eval_games=200

rec benchmark aec-throughput python benchmarks/aec_throughput.py --json {json}
rec benchmark heuristic-batch python benchmarks/heuristic_batch.py --json {json}
rec benchmark vector-throughput python benchmarks/vector_throughput.py --seconds 0.5 \
    --repeats 3 --json {json}
rec benchmark train-throughput python benchmarks/train_throughput.py --settings self_play default_mix \
    --batched-num-envs 4096 --batched-threads 2 --repeats 5 --rollouts 2 --json {json}
rec benchmark train-throughput-live-seats python benchmarks/train_throughput.py \
    --settings self_play default_mix --batched-num-envs 4096 --batched-threads 2 --repeats 5 \
    --rollouts 2 --learn-from live_seats --json {json}
rec benchmark web-load python benchmarks/web_load.py --clients 10 --seconds 20 --json {json}
rec benchmark exploitability-2p python benchmarks/exploitability.py --players 2 --json {json}

# The sweep trains for hours the first time (ONLY=sweeps only); once its study and runs are
# in runs/sweeps/, the same command reads them in seconds (--trials 0: no new trial).
if [[ "${ONLY:-}" == sweeps ]]; then
    rec sweeps revised-2p grove-sweep configs/sweeps/revised_2p.yaml --trials 0 --fresh \
        --json {json} --png "$DATA/sweeps/revised-2p.png"
    rec sweeps mmd-reward-2p grove-sweep configs/sweeps/mmd_reward_2p.yaml --trials 0 --fresh \
        --json {json} --png "$DATA/sweeps/mmd-reward-2p.png"
fi

python scripts/results_pages.py
