#!/usr/bin/env bash
# Builds lock-benchmarks (and what it depends on) and runs every benchmark against the local PostgreSQL
# (127.0.0.1:5432, user postgres) and Redis (127.0.0.1:6379). The full run rewrites docs/benchmarks.md and
# docs/benchmarks.svg; `--scenarios=a,b` runs only those and merges their sections into the report; `--quick` is a
# smoke run; `--help` lists the options; `--no-build` skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
args=()
for a in "$@"; do
  if [[ "$a" == "--no-build" ]]; then build=0; else args+=("$a"); fi
done
if [[ $build == 1 ]]; then
  # Tests are compiled (other modules' test jars are part of the build) but not run.
  ./mvnw -q -B -pl lock-benchmarks -am package -DskipTests -Dspotless.check.skip=true
fi
# Run from a copy: a build started meanwhile (a `clean` in the same tree) must not pull the classes from under
# the two JVMs of a ten-minute run.
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
cp -r lock-benchmarks/target/lock-benchmarks.jar lock-benchmarks/target/lib "$copy/"
# Same heap for both JVMs (the second inherits these options); a fixed heap keeps GC behaviour comparable.
java -Xms1g -Xmx1g -XX:+UseG1GC -jar "$copy/lock-benchmarks.jar" "${args[@]+"${args[@]}"}"
