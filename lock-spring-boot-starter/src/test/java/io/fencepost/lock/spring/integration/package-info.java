/** End-to-end tests of the starter on PostgreSQL: transactions, scheduled jobs and the README quick start. */
package io.fencepost.lock.spring.integration;
