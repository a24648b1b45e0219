/** The scenarios of issue 8, each measuring every selected library in interleaved rounds after a warm-up round. */
package io.fencepost.lock.benchmarks.scenarios;
