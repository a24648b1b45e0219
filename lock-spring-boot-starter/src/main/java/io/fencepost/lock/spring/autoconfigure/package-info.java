/**
 * Auto-configuration of Fencepost for Spring Boot: the {@code LockManager} bean on the application's
 * {@code DataSource}, the {@code @DistributedLock} advisor, the {@code fencepost.*} properties and start-up failure
 * analysis.
 */
package io.fencepost.lock.spring.autoconfigure;
