/**
 * {@code @DistributedLock(fenceTransaction = true)}: the method's transaction commits only while its lease is held,
 * checked with {@link io.fencepost.lock.jdbc.JdbcLeaseGuard} just before the commit.
 */
package io.fencepost.lock.spring.transaction;
