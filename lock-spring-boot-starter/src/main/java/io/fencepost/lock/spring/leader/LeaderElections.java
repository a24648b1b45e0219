package io.fencepost.lock.spring.leader;

import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.LeadershipListener;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * The leader elections of this application, one per configured group: they join when the context starts and leave
 * (stepping down first) when it stops, and publish leadership as application events.
 */
public class LeaderElections implements SmartLifecycle {

    private final Map<String, LeaderElection> byGroup = new LinkedHashMap<>();

    private volatile boolean running;

    /**
     * Elections of {@code groups} (each with its lease time) on {@code locks}, publishing to {@code events}.
     *
     * @throws IllegalArgumentException for a blank group or an invalid lease time
     */
    public LeaderElections(LockManager locks, Map<String, Duration> groups, ApplicationEventPublisher events) {
        groups.forEach((group, leaseTime) -> byGroup.put(
                group,
                LeaderElection.builder(locks, group)
                        .leaseTime(leaseTime)
                        .listener(publishing(group, events))
                        .build()));
    }

    private static LeadershipListener publishing(String group, ApplicationEventPublisher events) {
        return new LeadershipListener() {
            @Override
            public void granted(Lease leadership) {
                events.publishEvent(new LeadershipGrantedEvent(group, leadership));
            }

            @Override
            public void revoked(Lease leadership) {
                events.publishEvent(new LeadershipRevokedEvent(group, leadership));
            }
        };
    }

    /** The configured groups. */
    public Set<String> groups() {
        return byGroup.keySet();
    }

    /** Whether this instance leads {@code group} now. */
    public boolean isLeader(String group) {
        return leadership(group).isPresent();
    }

    /**
     * The leadership lease of {@code group} while this instance leads it.
     *
     * @throws IllegalArgumentException for a group that is not configured
     */
    public Optional<Lease> leadership(String group) {
        return election(group).leadership();
    }

    /** Steps down from leading {@code group}, if leading; this instance stays a candidate. */
    public void yieldLeadership(String group) {
        election(group).yieldLeadership();
    }

    private LeaderElection election(String group) {
        LeaderElection election = byGroup.get(group);
        if (election == null) {
            throw new IllegalArgumentException("no leader election group '" + group + "'; configured groups are "
                    + byGroup.keySet() + " (add it under fencepost.leader.groups)");
        }
        return election;
    }

    @Override
    public void start() {
        byGroup.values().forEach(LeaderElection::start);
        running = true;
    }

    /** Steps down and leaves every election; the elections cannot start again. */
    @Override
    public void stop() {
        running = false;
        byGroup.values().forEach(LeaderElection::close);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Late in start-up, early in shut-down: after the lock manager is ready, before it closes. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1000;
    }
}
