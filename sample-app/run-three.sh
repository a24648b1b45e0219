#!/usr/bin/env bash
# Starts three instances of the sample app on ports 8081, 8082 and 8083 against one PostgreSQL, for the
# multi-instance demo: open the three pages, watch the settlement job run on one instance per tick, stop an
# instance (Ctrl-C stops them all) and see another take over.
#
#   sample-app/run-three.sh                       # one embedded PostgreSQL, started for the three (port 54329)
#   SPRING_DATASOURCE_URL=jdbc:postgresql://localhost:5432/ledger?user=me sample-app/run-three.sh
#
# Needs only a JDK 17+: the first run builds the executable jar with the Maven wrapper.
set -euo pipefail
cd "$(dirname "$0")/.."

ports=(8081 8082 8083)
db_port="${SAMPLE_DB_PORT:-54329}"
logs="sample-app/target/run-three"
pids=()
db_pid=""

stop_all() {
  trap - INT TERM EXIT
  if ((${#pids[@]})); then
    echo "[run-three] stopping the instances"
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
  if [[ -n "$db_pid" ]]; then
    echo "[run-three] stopping the embedded PostgreSQL (its data is deleted)"
    kill "$db_pid" 2>/dev/null || true
    wait "$db_pid" 2>/dev/null || true
  fi
}
trap stop_all INT TERM EXIT

echo "[run-three] building the sample app (./mvnw -pl sample-app -am package -DskipTests)"
./mvnw -B -q -pl sample-app -am package -DskipTests
jar=$(ls sample-app/target/sample-app-*.jar | grep -v -- '-plain\|-sources\|-tests' | head -n 1)
mkdir -p "$logs"

wait_for_port() { # port, what, pid
  for _ in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    if ! kill -0 "$3" 2>/dev/null; then echo "[run-three] $2 exited; see $logs" >&2; return 1; fi
    sleep 1
  done
  echo "[run-three] $2 did not come up on port $1; see $logs" >&2
  return 1
}

if [[ -z "${SPRING_DATASOURCE_URL:-}" ]]; then
  echo "[run-three] no SPRING_DATASOURCE_URL: starting one embedded PostgreSQL on port $db_port for the three"
  java -cp "$jar" -Dloader.main=io.fencepost.sample.db.StandaloneDatabase \
    org.springframework.boot.loader.launch.PropertiesLauncher \
    --sample.embedded-database.port="$db_port" >"$logs/database.log" 2>&1 &
  db_pid=$!
  wait_for_port "$db_port" "the embedded PostgreSQL" "$db_pid"
  export SPRING_DATASOURCE_URL="jdbc:postgresql://127.0.0.1:$db_port/sample?user=fencepost_sample"
fi

for i in 1 2 3; do
  port=${ports[$((i - 1))]}
  java -jar "$jar" --server.port="$port" --sample.instance-name="instance-$i" \
    >"$logs/instance-$i.log" 2>&1 &
  pids+=($!)
  echo "[run-three] instance-$i starting on http://localhost:$port (log: $logs/instance-$i.log)"
done
for i in 1 2 3; do
  wait_for_port "${ports[$((i - 1))]}" "instance-$i" "${pids[$((i - 1))]}"
done

echo "[run-three] up: http://localhost:8081  http://localhost:8082  http://localhost:8083  (Ctrl-C stops all)"
echo "[run-three] settlement runs (one instance per tick):"
tail -n 0 -F "$logs"/instance-*.log | grep --line-buffered 'settlement run' &
pids+=($!)
wait "${pids[@]}"
