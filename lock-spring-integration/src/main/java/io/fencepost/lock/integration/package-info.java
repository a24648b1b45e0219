/**
 * Spring Integration on Fencepost: {@link io.fencepost.lock.integration.FencepostLockRegistry} is a lock registry of
 * {@code DistributedLock}s backed by Fencepost leases, for {@code LockRegistryLeaderInitiator} and every component that
 * takes a lock registry.
 */
package io.fencepost.lock.integration;
