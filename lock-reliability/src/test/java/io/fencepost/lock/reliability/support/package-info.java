/** Test machinery: PostgreSQL clusters started from the local binaries, a faulty TCP proxy, child JVMs. */
package io.fencepost.lock.reliability.support;
