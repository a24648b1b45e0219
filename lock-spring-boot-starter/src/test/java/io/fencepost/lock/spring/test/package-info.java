/** What the starter's tests share: application contexts on a test database, and waits for a test's go-ahead. */
package io.fencepost.lock.spring.test;
