/**
 * ShedLock on Fencepost: {@link io.fencepost.lock.shedlock.FencepostLockProvider} is a ShedLock lock provider over a
 * {@link io.fencepost.lock.LockManager}, so that {@code @SchedulerLock} tasks take Fencepost leases and can read their
 * fencing token.
 */
package io.fencepost.lock.shedlock;
