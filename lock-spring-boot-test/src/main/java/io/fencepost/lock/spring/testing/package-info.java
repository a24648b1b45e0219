/**
 * Spring Boot test support: {@link io.fencepost.lock.spring.testing.AutoConfigureTestLocks} replaces the application's
 * lock manager with {@link io.fencepost.lock.testing.TestLocks}, which the test controls.
 */
package io.fencepost.lock.spring.testing;
