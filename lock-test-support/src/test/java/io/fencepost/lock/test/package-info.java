/** Test helpers that other modules' tests reuse through this module's test jar. */
package io.fencepost.lock.test;
