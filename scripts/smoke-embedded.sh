#!/usr/bin/env bash
# Proves the embedded path: `npm start` (the README's command) with no DATABASE_URL builds, migrates, creates
# the first admin, serves /readyz, and stops cleanly on SIGTERM; a restart on the same data creates no admin.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=${SMOKE_PORT:-$((20000 + RANDOM % 20000))}
log="$data/start.log"
env -u DATABASE_URL DATA_DIR="$data/data" PORT="$port" LOG_LEVEL=warn npm start >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' EXIT
started=$(date +%s%N)
for _ in $(seq 1 1800); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 $pid 2>/dev/null; then echo "embedded smoke: server exited early"; cat "$log"; exit 1; fi
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/readyz" || { echo "embedded smoke: /readyz never answered"; cat "$log"; exit 1; }
echo
echo "embedded smoke: npm start (build included) ready in $(( ($(date +%s%N) - started) / 1000000 )) ms"
grep -q 'password:' "$log" || { echo "embedded smoke: the first start did not print the admin password"; exit 1; }
kill -TERM $pid
wait $pid
echo "embedded smoke: clean shutdown (exit 0)"
# second start on the same data folder: no new admin, ready again
env -u DATABASE_URL DATA_DIR="$data/data" PORT="$port" LOG_LEVEL=warn node bin/market-service.js start >"$log" 2>&1 &
pid=$!
started=$(date +%s%N)
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.05
done
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null
echo "embedded smoke: restart ready in $(( ($(date +%s%N) - started) / 1000000 )) ms"
if grep -q 'password:' "$log"; then echo "embedded smoke: a second admin was created"; exit 1; fi
kill -TERM $pid
wait $pid
echo "embedded smoke: passed"
