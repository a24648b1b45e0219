/**
 * Fencepost on PostgreSQL without Spring: {@link io.fencepost.lock.jdbc.PostgresLockManager}, the
 * {@link io.fencepost.lock.jdbc.PostgresLeaseStore} behind it and the schema it needs.
 */
package io.fencepost.lock.jdbc;
