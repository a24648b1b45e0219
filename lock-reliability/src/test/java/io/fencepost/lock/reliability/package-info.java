/**
 * Reliability and security tests of Fencepost: a randomized multi-process checker, fault injection, failover to a
 * standby and hostile input. See {@code docs/reliability.md}.
 */
package io.fencepost.lock.reliability;
