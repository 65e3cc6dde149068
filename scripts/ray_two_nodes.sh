#!/usr/bin/env bash
# A 2-node Ray cluster on loopback trains one RLlib iteration through RAY_ADDRESS.
#
#   scripts/ray_two_nodes.sh [PORT]        (needs: pip install "grove-env[rllib]")
#
# The head and the worker are two `ray start --block` processes, each with its own
# --temp-dir, on 127.0.0.1; train.py joins them through RAY_ADDRESS with
# configs/rllib_smoke.yaml cut to one iteration, two env runners (one per node's CPU
# budget). Both nodes are stopped afterwards by the pids this script started, never by
# name. Ray 2.60 turns on token authentication in `ray start` when ~/.ray/auth_token
# exists (the first local ray.init writes it), and a driver that does not send the
# token is refused ("Missing authorization header"); this loopback test cluster opts
# out for all its processes with RAY_AUTH_MODE=disabled (override it to test auth).
set -euo pipefail
export RAY_AUTH_MODE="${RAY_AUTH_MODE:-disabled}"

PORT="${1:-6390}"
PYTHON="${PYTHON:-python}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d /tmp/grove-ray-XXXXXX)"
ADDRESS="127.0.0.1:${PORT}"
pids=()

stop_nodes() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do  # wait for each node to go down
        while kill -0 "$pid" 2>/dev/null; do sleep 1; done
    done
    echo "stopped Ray nodes (pids ${pids[*]:-none}); logs in ${WORK}"
}
trap stop_nodes EXIT

# `python -m ray.scripts.scripts` is the `ray` command; run directly, so that $! is the
# pid of `ray start --block` itself, which takes its node down on SIGTERM.
"$PYTHON" -m ray.scripts.scripts start --head --block --node-ip-address=127.0.0.1 --port="$PORT" \
    --num-cpus=2 --include-dashboard=false --temp-dir="${WORK}/head" \
    >"${WORK}/head.log" 2>&1 &
pids+=($!)
for _ in $(seq 60); do  # wait until the head answers
    if RAY_ADDRESS="$ADDRESS" timeout 60 "$PYTHON" -c \
        "import ray; ray.init(_node_ip_address='127.0.0.1'); ray.shutdown()" >/dev/null 2>&1; then
        break
    fi
    sleep 2
done

"$PYTHON" -m ray.scripts.scripts start --block --address="$ADDRESS" --node-ip-address=127.0.0.1 --num-cpus=2 \
    --temp-dir="${WORK}/worker" >"${WORK}/worker.log" 2>&1 &
pids+=($!)
for _ in $(seq 60); do  # wait until the cluster has both nodes
    nodes=$(RAY_ADDRESS="$ADDRESS" timeout 60 "$PYTHON" -c "import ray; \
ray.init(_node_ip_address='127.0.0.1'); print(sum(n['Alive'] for n in ray.nodes()))" \
        2>/dev/null | tail -1 || true)
    [ "$nodes" = "2" ] && break
    sleep 2
done
echo "cluster at ${ADDRESS}: ${nodes:-?} nodes alive"

cd "$ROOT"
RAY_ADDRESS="$ADDRESS" timeout 900 "$PYTHON" train.py --config configs/rllib_smoke.yaml \
    --set total_timesteps=1024 --set final_eval_games=0 --set rllib.env_runners=2 \
    --set rllib.node_ip_address=127.0.0.1 --set runs_root="${WORK}/runs"
