/** An in-memory {@link io.fencepost.lock.spi.LeaseStore} for unit tests, and a clock to drive it. */
package io.fencepost.lock.memory;
