/**
 * The {@code locks} Actuator endpoint: the leases this instance holds, the store's view of a key, and an operator's
 * forced release (off by default). Owner tokens never appear.
 */
package io.fencepost.lock.spring.actuate.endpoint;
