/**
 * The randomized checker: worker JVMs lock, pause and write through the fencing guard while faults are injected;
 * afterwards the recorded history is verified (in database time, no exclusive lease overlapping another lease of its
 * key, never more than n permits live, fencing tokens increasing in grant order, no stale write accepted).
 */
package io.fencepost.lock.reliability.checker;
