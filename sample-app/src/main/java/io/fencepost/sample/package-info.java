/** The Fencepost sample application. */
package io.fencepost.sample;
