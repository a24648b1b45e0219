/**
 * Each library under test behind one small interface, set up and used the way its documentation recommends.
 */
package io.fencepost.lock.benchmarks.clients;
