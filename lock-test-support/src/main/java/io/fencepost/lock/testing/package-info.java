/**
 * Testing your own locking: {@link io.fencepost.lock.testing.TestLocks}, a lock manager a test controls (a lease that
 * runs out while its holder goes on, a store that goes down, a second instance), and
 * {@link io.fencepost.lock.testing.TestLocksExtension}, which hands one to each JUnit 5 test.
 */
package io.fencepost.lock.testing;
