/**
 * Micrometer meters for Fencepost's locks, fed by the core's {@link io.fencepost.lock.spi.LockListener} SPI and tagged
 * by the lock's low-cardinality name, never by its key.
 */
package io.fencepost.lock.spring.metrics;
