/**
 * The {@code locks} health indicator: whether the lock store is reachable and usable, how far the JVM's clock is from
 * the database's, and whether the database's set-up could let a crash or a failover re-issue a lock.
 */
package io.fencepost.lock.spring.actuate.health;
