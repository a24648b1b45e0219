package io.fencepost.lock.spring.leader;

import io.fencepost.lock.Lease;

/**
 * A change of this instance's leadership of a group: {@link LeadershipGrantedEvent} when a term begins,
 * {@link LeadershipRevokedEvent} when it ends. Listen for this type to see both.
 */
public sealed interface LeadershipEvent permits LeadershipGrantedEvent, LeadershipRevokedEvent {

    /** The group, as configured under {@code fencepost.leader.groups}. */
    String group();

    /** The leadership lease of the term; its fencing token is the term. */
    Lease leadership();

    /** The term: the leadership lease's fencing token, higher than every earlier term of the group. */
    default long term() {
        return leadership().fencingToken();
    }
}
