/**
 * Auto-configuration of Fencepost for Spring Boot, one per concern: the {@code LockManager} bean on the application's
 * {@code DataSource} and the {@code @DistributedLock} advisor ({@code LockAutoConfiguration}), Micrometer meters
 * ({@code LockMetricsAutoConfiguration}), the {@code locks} Actuator endpoint ({@code LockEndpointAutoConfiguration})
 * and health indicator ({@code LockHealthContributorAutoConfiguration}); plus the {@code fencepost.*} properties and
 * start-up failure analysis.
 */
package io.fencepost.lock.spring.autoconfigure;
