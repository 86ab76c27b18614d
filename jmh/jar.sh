#!/usr/bin/env bash
# Builds jmh/target/benchmarks.jar from the checkout as it is and prints its path; every benchmark script runs through
# it. Always built (incremental: seconds when nothing changed), never reused as found: a jar left from an older
# checkout would measure that code while the results name this commit.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "Building jmh/target/benchmarks.jar ..." >&2
./mvnw -q -pl jmh -am package -DskipTests >&2
echo jmh/target/benchmarks.jar
