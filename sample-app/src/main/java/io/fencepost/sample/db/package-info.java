/** The database of last resort: an embedded PostgreSQL when none is configured. */
package io.fencepost.sample.db;
