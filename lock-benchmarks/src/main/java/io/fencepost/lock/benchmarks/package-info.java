/**
 * The benchmark harness: measures Fencepost next to its alternatives against the local PostgreSQL and Redis and
 * writes {@code docs/benchmarks.md}. Run on demand with {@code lock-benchmarks/run.sh}; never part of the build's
 * tests.
 */
package io.fencepost.lock.benchmarks;
