/**
 * Extension points: the {@link io.fencepost.lock.spi.LeaseStore} a store implements (with the abilities
 * {@link io.fencepost.lock.spi.LeaseHandOver}, {@link io.fencepost.lock.spi.WaiterRelay} and
 * {@link io.fencepost.lock.spi.MultiKeyAcquire}, which it may add), the
 * request records and results it speaks in, and the {@link io.fencepost.lock.spi.LockListener} that metrics and
 * tracing hang on.
 */
package io.fencepost.lock.spi;
