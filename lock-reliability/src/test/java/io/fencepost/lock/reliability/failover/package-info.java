/**
 * Failover: a primary and a streaming standby started from the local binaries, locks running against the primary,
 * the primary crashed and the standby promoted; synchronous replication keeps every confirmed grant, asynchronous
 * replication can lose grants and re-issue fencing tokens.
 */
package io.fencepost.lock.reliability.failover;
