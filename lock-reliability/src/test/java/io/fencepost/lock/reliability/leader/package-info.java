/** Leader election across real processes, under kill -9 and SIGSTOP of the leader. */
package io.fencepost.lock.reliability.leader;
