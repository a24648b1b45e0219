/**
 * The Fencepost lock API: {@link io.fencepost.lock.LockManager}, {@link io.fencepost.lock.Lease},
 * {@link io.fencepost.lock.LockOptions} and the exceptions, independent of any store.
 */
package io.fencepost.lock;
