/**
 * Extension points: the {@link io.fencepost.lock.spi.LeaseStore} a store implements and the
 * {@link io.fencepost.lock.spi.LockListener} that metrics and tracing hang on.
 */
package io.fencepost.lock.spi;
