/**
 * Counting what reaches the servers: a loopback TCP proxy that reads the PostgreSQL and Redis protocols, and a JDBC
 * wrapper that times statements.
 */
package io.fencepost.lock.benchmarks.wire;
