package io.fencepost.lock.spring.leader;

import io.fencepost.lock.Lease;
import java.util.Objects;

/**
 * This instance is no longer the leader of {@code group}: its lease was lost (published no later than its safe local
 * deadline), it yielded, or the application is stopping (published before the lease is released). Its
 * {@link #term()} is the term that ended.
 *
 * @param group the group, as configured under {@code fencepost.leader.groups}
 * @param leadership the lease of the term that ended
 */
public record LeadershipRevokedEvent(String group, Lease leadership) implements LeadershipEvent {

    public LeadershipRevokedEvent {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(leadership, "leadership");
    }
}
