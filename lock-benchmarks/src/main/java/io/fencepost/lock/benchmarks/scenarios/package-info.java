/** The benchmark scenarios, each measuring every selected library in interleaved rounds after a warm-up round. */
package io.fencepost.lock.benchmarks.scenarios;
