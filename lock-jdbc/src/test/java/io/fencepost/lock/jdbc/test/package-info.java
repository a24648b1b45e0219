/**
 * Test support shared with other modules through the test-jar: a fresh PostgreSQL database per test class.
 */
package io.fencepost.lock.jdbc.test;
