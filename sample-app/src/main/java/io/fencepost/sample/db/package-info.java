/**
 * The database of last resort, an embedded PostgreSQL when none is configured; and the lab's replicated pairs (an
 * embedded primary with a streaming standby) and their data directories.
 */
package io.fencepost.sample.db;
