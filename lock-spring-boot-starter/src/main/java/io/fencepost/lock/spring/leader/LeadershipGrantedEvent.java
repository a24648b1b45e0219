package io.fencepost.lock.spring.leader;

import io.fencepost.lock.Lease;
import java.util.Objects;

/**
 * This instance became the leader of {@code group}, for the term {@code leadership.fencingToken()}.
 *
 * @param group the group, as configured under {@code fencepost.leader.groups}
 * @param leadership the leadership lease; its fencing token is the term
 */
public record LeadershipGrantedEvent(String group, Lease leadership) implements LeadershipEvent {

    public LeadershipGrantedEvent {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(leadership, "leadership");
    }
}
