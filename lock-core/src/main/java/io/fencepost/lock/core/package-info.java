/**
 * The lock engine: {@link io.fencepost.lock.core.DefaultLockManager} implements waiting, reentrancy, renewal
 * and lost-lease detection over any {@link io.fencepost.lock.spi.LeaseStore}.
 */
package io.fencepost.lock.core;
