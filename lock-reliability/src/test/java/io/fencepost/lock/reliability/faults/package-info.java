/**
 * Fault-injection tests against real PostgreSQL: restarts, terminated backends, a faulty network, an exhausted pool
 * and paused holders.
 */
package io.fencepost.lock.reliability.faults;
