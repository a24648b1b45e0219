/**
 * The randomized checker: worker JVMs lock, pause and write through the fencing guard while faults are injected;
 * afterwards the recorded history is verified (no overlapping grants in database time, fencing tokens increasing
 * in grant order, no stale write accepted).
 */
package io.fencepost.lock.reliability.checker;
