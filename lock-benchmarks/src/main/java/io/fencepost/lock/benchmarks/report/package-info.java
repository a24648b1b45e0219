/** Turns one run's results into {@code docs/benchmarks.md} and its SVG chart. */
package io.fencepost.lock.benchmarks.report;
